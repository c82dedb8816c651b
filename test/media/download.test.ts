import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../src/core/env";
import { setClockForTests } from "../../src/core/lib/clock";
import * as schema from "../../src/db/schema";
import { contentDisposition } from "../../src/platform/media/download-service";
import { mediaLinkSignature } from "../../src/platform/media/links";
import { db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { assetRow, confirmedAsset, download, FIXTURES, mediaSchool } from "./helpers";

function linkParts(link: string) {
  const url = new URL(link, "https://api.lms.localhost");
  return { id: url.pathname.split("/")[4]!, exp: Number(url.searchParams.get("exp")), sig: url.searchParams.get("sig")! };
}

describe("GET /media/:id/download (signed link)", () => {
  it("serves an HTML file uploaded as a document as an attachment under a sandbox policy, never inline", async () => {
    const { student } = await mediaSchool();
    const asset = await confirmedAsset(student, "document", FIXTURES.html, { filename: "page.html", mime: "text/html" });
    expect(asset.mime).toBe("text/html");
    const { response, bytes } = await download(asset.presigned_url);
    expect(response.status).toBe(200);
    expect(bytes).toEqual(FIXTURES.html);
    expect(response.headers.get("content-type")).toBe("text/html");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="page.html"; filename*=UTF-8''page.html`);
    expect(response.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toMatch(/^private, max-age=(3[0-5]\d\d|3600)$/);
  });

  it("stores an undetectable document declared as something else as application/octet-stream (attachment)", async () => {
    const { student } = await mediaSchool();
    const asset = await confirmedAsset(student, "document", FIXTURES.svg, { filename: "drawing.svg", mime: "image/svg+xml" });
    expect(asset.mime).toBe("application/octet-stream");
    const { response } = await download(asset.presigned_url);
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; /);
  });

  it("encodes any display name safely in Content-Disposition", () => {
    expect(contentDisposition("attachment", 'Отчёт "final"; v2%.pdf')).toBe(
      `attachment; filename="_____ _final__ v2_.pdf"; filename*=UTF-8''%D0%9E%D1%82%D1%87%D1%91%D1%82%20%22final%22%3B%20v2%25.pdf`,
    );
    expect(contentDisposition("inline", "it's (1).png")).toBe(`inline; filename="it's (1).png"; filename*=UTF-8''it%27s%20%281%29.png`);
  });

  it("answers a single byte range with 206 (video seeking)", async () => {
    const { student } = await mediaSchool();
    const asset = await confirmedAsset(student, "video", FIXTURES.mp4);
    const { response, bytes } = await download(asset.presigned_url, { range: "bytes=100-199" });
    expect(response.status).toBe(206);
    expect(response.headers.get("content-range")).toBe(`bytes 100-199/${FIXTURES.mp4.length}`);
    expect(bytes).toEqual(FIXTURES.mp4.subarray(100, 200));
    const tail = await download(asset.presigned_url, { range: "bytes=-10" });
    expect(tail.bytes).toEqual(FIXTURES.mp4.subarray(FIXTURES.mp4.length - 10));
    // Unsatisfiable or multiple ranges: the whole file.
    for (const range of ["bytes=999999-", "bytes=0-1,5-6", "items=0-1"]) {
      const whole = await download(asset.presigned_url, { range });
      expect({ range, status: whole.response.status, length: whole.bytes.length }).toEqual({ range, status: 200, length: FIXTURES.mp4.length });
    }
  });

  it("403 media_link_expired after the link's hour; a link never lasts longer than an hour", async () => {
    const { student } = await mediaSchool();
    const asset = await confirmedAsset(student, "image", FIXTURES.png);
    const { exp } = linkParts(asset.presigned_url);
    expect(exp - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(3600);
    setClockForTests({ now: () => (exp + 1) * 1000 });
    const expired = await download(asset.presigned_url);
    expect(failure(await expired.read())).toEqual({ status: 403, error: "media_link_expired" });
    setClockForTests(null);
    // A correctly signed link that claims more than an hour is refused like a forged one.
    const secret = getConfig(env).jwtKeys[0]!.secret;
    const far = Math.floor(Date.now() / 1000) + 7200;
    const long = `/api/v1/media/${asset.id}/download?exp=${far}&sig=${await mediaLinkSignature(secret, student.tenantId, asset.id, far)}`;
    expect(failure(await (await download(long)).read())).toEqual({ status: 404, error: "media_not_found" });
  });

  it("a link of another school never serves bytes: a tampered id or signature, or one signed for another school, is 404", async () => {
    const { student } = await mediaSchool();
    const other = await mediaSchool();
    const mine = await confirmedAsset(student, "image", FIXTURES.png);
    const theirs = await confirmedAsset(other.student, "pdf", FIXTURES.pdf);
    const { exp, sig } = linkParts(mine.presigned_url);
    const secret = getConfig(env).jwtKeys[0]!.secret;
    const forged = [
      // My signature on their asset id.
      `/api/v1/media/${theirs.id}/download?exp=${exp}&sig=${sig}`,
      // A signature for my school over their asset.
      `/api/v1/media/${theirs.id}/download?exp=${exp}&sig=${await mediaLinkSignature(secret, student.tenantId, theirs.id, exp)}`,
      // A flipped signature digit.
      `/api/v1/media/${mine.id}/download?exp=${exp}&sig=${sig.replace(/^./, (c) => (c === "0" ? "1" : "0"))}`,
      // Another expiry under the same signature.
      `/api/v1/media/${mine.id}/download?exp=${exp - 1}&sig=${sig}`,
    ];
    for (const link of forged) {
      const { response, read } = await download(link);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect({ link, ...failure(await read()) }).toEqual({ link, status: 404, error: "media_not_found" });
    }
  });

  it("a link stops working when the asset is deleted or its object was replaced after confirm", async () => {
    const { student } = await mediaSchool();
    const deleted = await confirmedAsset(student, "image", FIXTURES.png);
    await db().update(schema.mediaAssets).set({ deletedAt: Date.now() }).where(eq(schema.mediaAssets.id, deleted.id));
    expect(failure(await (await download(deleted.presigned_url)).read())).toEqual({ status: 404, error: "media_not_found" });

    const replaced = await confirmedAsset(student, "image", FIXTURES.png);
    const row = await assetRow(replaced.id);
    await env.MEDIA.put(row!.objectKey, FIXTURES.html);
    expect(failure(await (await download(replaced.presigned_url)).read())).toEqual({ status: 404, error: "media_not_found" });
  });

  it("answers 400 invalid_params to a link without a well-formed expiry and signature", async () => {
    const { student } = await mediaSchool();
    const asset = await confirmedAsset(student, "image", FIXTURES.png);
    for (const query of ["", "?exp=abc&sig=00", `?exp=1&sig=${"z".repeat(64)}`]) {
      const { read } = await download(`/api/v1/media/${asset.id}/download${query}`);
      expect({ query, ...failure(await read()) }).toEqual({ query, status: 400, error: "invalid_params" });
    }
  });
});
