import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { requestWithD1 } from "../helpers/d1-barrier";
import { schoolD1 } from "../helpers/databases";
import { wrapD1 } from "../helpers/wrapped-d1";
import { db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { as, unknownId } from "../helpers/users";
import { assetRow, confirm, confirmedAsset, FIXTURES, getAsset, mediaSchool, objectOf, presign, presigned, setQuota, uploaded } from "./helpers";

const MIB = 1024 * 1024;
const valid = { kind: "image", filename: "photo.png", declared_size: 1000, declared_mime: "image/png" };

describe("POST /t/media/presign failures", () => {
  it("400 invalid_request_body for a missing, mistyped or out-of-range field, malformed JSON and unknown keys", async () => {
    const { student } = await mediaSchool();
    const bodies: unknown[] = [
      {},
      { ...valid, filename: undefined },
      { ...valid, filename: "" },
      { ...valid, filename: "x".repeat(256) },
      { ...valid, declared_size: 0 },
      { ...valid, declared_size: 1.5 },
      { ...valid, declared_size: "1000" },
      { ...valid, declared_mime: "ab" },
      { ...valid, declared_mime: "x".repeat(128) },
      { ...valid, kind: 7 },
      { ...valid, object_key: "tenant/other/key" },
    ];
    for (const body of bodies) {
      expect({ body, ...failure(await presign(student, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    expect(failure(await as(student, "/t/media/presign", { raw: "{not json" }))).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it("400 invalid_kind for a kind outside video, image, pdf, document", async () => {
    const { student } = await mediaSchool();
    for (const kind of ["audio", "IMAGE", "svg", ""]) {
      expect({ kind, ...failure(await presign(student, { ...valid, kind })) }).toEqual({ kind, status: 400, error: "invalid_kind" });
    }
  });

  it("400 oversize_cap above each kind's cap (video 500, image 50, pdf 200, document 50 MiB); the cap itself passes", async () => {
    const { admin } = await mediaSchool();
    const caps = { video: 500 * MIB, image: 50 * MIB, pdf: 200 * MIB, document: 50 * MIB };
    for (const [kind, cap] of Object.entries(caps)) {
      expect({ kind, ...failure(await presign(admin, { ...valid, kind, declared_size: cap + 1 })) }).toEqual({ kind, status: 400, error: "oversize_cap" });
      expect((await presign(admin, { ...valid, kind, declared_size: cap })).status).toBe(200);
    }
  });

  it("400 storage_quota_exceeded when the school's confirmed files leave no room; pending uploads do not count", async () => {
    const { school, admin } = await mediaSchool();
    await setQuota(school.id, FIXTURES.png.length + 100);
    await confirmedAsset(admin, "image", FIXTURES.png);
    expect((await presign(admin, { ...valid, declared_size: 100 })).status).toBe(200);
    expect((await presign(admin, { ...valid, declared_size: 100 })).status).toBe(200);
    const refused = await presign(admin, { ...valid, declared_size: 101 });
    expect(failure(refused)).toEqual({ status: 400, error: "storage_quota_exceeded" });
    expect(refused.body.message).toContain("100 bytes free");
    expect(await db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.tenantId, school.id))).toHaveLength(3);
  });

  it("404 tenant_not_found when the school is deleted between sign-in check and the write; nothing is recorded", async () => {
    const { school, admin } = await mediaSchool();
    // Deletes the school just before the presign's batch reaches D1 (after authentication read it live).
    const shard = await schoolD1(school.id);
    const racing = wrapD1(shard, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === "batch") {
          return async (statements: D1PreparedStatement[]) => {
            // The school row is in the control database; the presign's batch goes to the school's shard.
            await env.DB.prepare("UPDATE tenants SET deleted_at = ? WHERE id = ?").bind(Date.now(), school.id).run();
            return target.batch(statements);
          };
        }
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const res = await requestWithD1(racing, "/t/media/presign", { token: admin.token, tenant: school.subdomain, body: valid });
    expect(failure(res)).toEqual({ status: 404, error: "tenant_not_found" });
    expect(await db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.tenantId, school.id))).toEqual([]);
  });
});

describe("POST /t/media/:id/confirm failures", () => {
  it("400 invalid_id_format for a malformed id", async () => {
    const { student } = await mediaSchool();
    expect(failure(await confirm(student, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("404 media_not_found for an unknown id and for another school's asset (which stays pending)", async () => {
    const { student } = await mediaSchool();
    const other = await mediaSchool();
    const theirs = await uploaded(other.admin, "image", FIXTURES.png);
    expect(failure(await confirm(student, unknownId()))).toEqual({ status: 404, error: "media_not_found" });
    expect(failure(await confirm(student, theirs.media_asset_id))).toEqual({ status: 404, error: "media_not_found" });
    expect((await assetRow(theirs.media_asset_id))?.status).toBe("pending");
  });

  it("400 confirm_failed while nothing was uploaded", async () => {
    const { student } = await mediaSchool();
    const ticket = await presigned(student, { ...valid, declared_size: FIXTURES.png.length });
    expect(failure(await confirm(student, ticket.media_asset_id))).toEqual({ status: 400, error: "confirm_failed" });
    expect((await assetRow(ticket.media_asset_id))?.status).toBe("pending");
  });

  it("400 oversize_cap for an object larger than declared (a direct R2 upload); the object is removed and nothing counted", async () => {
    const { school, student } = await mediaSchool();
    const ticket = await presigned(student, { ...valid, declared_size: 10 });
    await env.MEDIA.put(ticket.object_key, FIXTURES.png);
    const res = await confirm(student, ticket.media_asset_id);
    expect(failure(res)).toEqual({ status: 400, error: "oversize_cap" });
    expect(res.body.message).toContain("larger than its declared_size");
    expect(await objectOf(ticket.object_key)).toBeNull();
    expect(await assetRow(ticket.media_asset_id)).toMatchObject({ status: "pending", sizeBytes: 10 });
    await setQuota(school.id, 10);
    expect((await presign(student, { ...valid, declared_size: 10 })).status).toBe(200);
  });

  it("400 mime_mismatch: SVG, HTML and a pdf presented as an image, a png as a pdf, text as a video; the object is removed", async () => {
    const { student } = await mediaSchool();
    const cases: [string, Uint8Array, string][] = [
      ["image", FIXTURES.svg, "image/svg+xml"],
      ["image", FIXTURES.html, "image/png"],
      ["image", FIXTURES.pdf, "image/png"],
      ["pdf", FIXTURES.png, "application/pdf"],
      ["video", new TextEncoder().encode("not a video at all"), "video/mp4"],
    ];
    for (const [kind, bytes, mime] of cases) {
      const ticket = await uploaded(student, kind as "image", bytes, { mime });
      const res = await confirm(student, ticket.media_asset_id);
      expect({ kind, mime, ...failure(res) }).toEqual({ kind, mime, status: 400, error: "mime_mismatch" });
      expect(await objectOf(ticket.object_key)).toBeNull();
      expect((await assetRow(ticket.media_asset_id))?.status).toBe("pending");
    }
  });
});

describe("GET /t/media/:id failures", () => {
  it("400 invalid_id_format and 404 media_not_found (unknown, another school's, deleted)", async () => {
    const { student } = await mediaSchool();
    const other = await mediaSchool();
    const theirs = await confirmedAsset(other.admin, "image", FIXTURES.png);
    const mine = await confirmedAsset(student, "image", FIXTURES.png);
    await db().update(schema.mediaAssets).set({ deletedAt: Date.now() }).where(eq(schema.mediaAssets.id, mine.id));
    expect(failure(await getAsset(student, "1234"))).toEqual({ status: 400, error: "invalid_id_format" });
    for (const id of [unknownId(), theirs.id, mine.id]) {
      expect({ id, ...failure(await getAsset(student, id)) }).toEqual({ id, status: 404, error: "media_not_found" });
    }
  });

  it("409 media_not_confirmed for pending and failed assets, with the metadata in data and an empty link", async () => {
    const { student } = await mediaSchool();
    const ticket = await presigned(student, { ...valid, declared_size: 321 });
    const pending = await getAsset(student, ticket.media_asset_id);
    expect(failure(pending)).toEqual({ status: 409, error: "media_not_confirmed" });
    expect(pending.body.data).toEqual({
      id: ticket.media_asset_id,
      kind: "image",
      filename: "photo.png",
      size: 321,
      mime: "image/png",
      status: "pending",
      duration_seconds: null,
      total_pages: null,
      presigned_url: "",
      expires_in: 0,
      created_at: expect.any(String),
    });
    await db().update(schema.mediaAssets).set({ status: "failed" }).where(eq(schema.mediaAssets.id, ticket.media_asset_id));
    const failed = await getAsset(student, ticket.media_asset_id);
    expect(failure(failed)).toEqual({ status: 409, error: "media_not_confirmed" });
    expect(failed.body.data).toMatchObject({ status: "failed", presigned_url: "" });
    expect(failure(await confirm(student, ticket.media_asset_id))).toEqual({ status: 400, error: "confirm_failed" });
  });
});
