import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as } from "../../helpers/users";
import { FIXTURES, download, setQuota } from "../../media/helpers";
import { submissionFileRows, submissionRows, submissionSchool, postFiles, draftOf } from "./helpers";

/**
 * Multipart creates: 1 to 5 parts named `attachments`, each stored through the media flow (kind
 * from the content, the quota counted, confirmed, uploaded by the student); anything else refused
 * with nothing stored, neither asset rows nor objects.
 */

async function assetsOf(tenantId: string) {
  return db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.tenantId, tenantId));
}

async function objectsOf(tenantId: string) {
  return (await env.MEDIA.list({ prefix: `tenant/${tenantId}/` })).objects.map((object) => object.key);
}

const five = [
  { name: "photo.png", bytes: FIXTURES.png, type: "image/png" },
  { name: "report.pdf", bytes: FIXTURES.pdf, type: "application/pdf" },
  { name: "clip.mp4", bytes: FIXTURES.mp4, type: "video/mp4" },
  { name: "notes.txt", bytes: new TextEncoder().encode("my notes\n"), type: "text/plain" },
  { name: "fake.png", bytes: FIXTURES.html, type: "image/png" },
];

describe("multipart submissions", () => {
  it("stores 5 files as confirmed assets of the school, kind from their content, and attaches them in order", async () => {
    const { school, student, assignment } = await submissionSchool();
    const res = await postFiles(student, assignment.id, five);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const files = res.body.data.attachments as { media_asset_id: string; position: number; filename: string; kind: string; mime: string; size: number; url: string }[];
    expect(files.map((file) => [file.position, file.filename, file.kind, file.mime, file.size])).toEqual([
      [0, "photo.png", "image", "image/png", FIXTURES.png.length],
      [1, "report.pdf", "pdf", "application/pdf", FIXTURES.pdf.length],
      [2, "clip.mp4", "video", "video/mp4", FIXTURES.mp4.length],
      [3, "notes.txt", "document", "text/plain", 9],
      // Declared an image, but its content is HTML: stored as a document, never served as an image.
      [4, "fake.png", "document", "application/octet-stream", FIXTURES.html.length],
    ]);
    const assets = await assetsOf(school.id);
    expect(assets).toHaveLength(5);
    for (const asset of assets) expect([asset.status, asset.uploadedByUserId, asset.confirmedAt !== null, asset.etag !== null]).toEqual(["confirmed", student.id, true, true]);
    expect((await objectsOf(school.id)).sort()).toEqual(assets.map((asset) => asset.objectKey).sort());
    expect((await submissionFileRows(res.body.data.id)).map((row) => row.mediaAssetId)).toEqual(files.map((file) => file.media_asset_id));
    const fetched = await download(files[0]!.url);
    expect(fetched.response.status).toBe(200);
    expect(fetched.bytes).toEqual(FIXTURES.png);
  });

  it("400 invalid_request_body for a 6th file, no file, or another part; nothing stored", async () => {
    const { school, student, assignment } = await submissionSchool();
    const six = [...five, { name: "six.txt", bytes: new TextEncoder().encode("6"), type: "text/plain" }];
    expect(failure(await postFiles(student, assignment.id, six))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await postFiles(student, assignment.id, [five[0]!], "file"))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await postFiles(student, assignment.id, []))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(await submissionRows(assignment.id)).toEqual([]);
    expect(await assetsOf(school.id)).toEqual([]);
    expect(await objectsOf(school.id)).toEqual([]);
  });

  it("400 invalid_request_body with details for a file name with control or bidi characters, as presign refuses it; nothing stored", async () => {
    const { school, student, assignment } = await submissionSchool();
    for (const name of ["report\u202Efdp.exe", "a\u2066b.txt", "bell\u0007.txt", "nel\u0085.txt"]) {
      const refused = await postFiles(student, assignment.id, [five[3]!, { ...five[0]!, name }]);
      expect(failure(refused), JSON.stringify(name)).toEqual({ status: 400, error: "invalid_request_body" });
      expect(refused.body.details.map((detail: { path: string }) => detail.path)).toEqual(["attachments.1.filename"]);
      const presigned = await as(student, "/t/media/presign", { body: { kind: "image", filename: name, declared_size: 10, declared_mime: "image/png" } });
      expect([presigned.status, presigned.body.error, presigned.body.details.map((detail: { path: string }) => detail.path)]).toEqual([400, "invalid_request_body", ["filename"]]);
    }
    expect(await submissionRows(assignment.id)).toEqual([]);
    expect(await assetsOf(school.id)).toEqual([]);
    expect(await objectsOf(school.id)).toEqual([]);
    const accepted = await postFiles(student, assignment.id, [{ ...five[0]!, name: "Дилноза фото.png" }]);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body.data.attachments[0].filename).toBe("Дилноза фото.png");
  });

  it("the quota counts the files together: over it, 400 storage_quota_exceeded and nothing stored", async () => {
    const { school, student, assignment } = await submissionSchool();
    await setQuota(school.id, FIXTURES.png.length + FIXTURES.pdf.length - 1);
    const two = [five[0]!, five[1]!];
    expect(failure(await postFiles(student, assignment.id, two))).toEqual({ status: 400, error: "storage_quota_exceeded" });
    expect(await submissionRows(assignment.id)).toEqual([]);
    expect(await assetsOf(school.id)).toEqual([]);
    expect(await objectsOf(school.id)).toEqual([]);
    await setQuota(school.id, FIXTURES.png.length + FIXTURES.pdf.length);
    expect((await postFiles(student, assignment.id, two)).status).toBe(201);
  });

  it("files sent while a draft exists are not stored: the draft is answered unchanged (200)", async () => {
    const { school, student, assignment } = await submissionSchool();
    const draft = await draftOf(student, assignment.id);
    const res = await postFiles(student, assignment.id, [five[0]!]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(draft);
    expect(await assetsOf(school.id)).toEqual([]);
    expect(await objectsOf(school.id)).toEqual([]);
  });

  it("a refusal before storing (not targeted) stores nothing either", async () => {
    const { school, student } = await submissionSchool();
    const other = await submissionSchool();
    expect(failure(await postFiles(student, other.assignment.id, [five[0]!]))).toEqual({ status: 404, error: "assignment_not_found" });
    expect(await objectsOf(school.id)).toEqual([]);
  });
});
