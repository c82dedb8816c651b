import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import { toHex } from "../../src/core/lib/crypto";
import { db } from "../helpers/factories";
import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { failure, readResponse } from "../helpers/http";
import { confirm, confirmedAsset, FIXTURES, mediaSchool, objectOf, postForm, presigned, setQuota } from "./helpers";

const png = FIXTURES.png;

async function ticketFor(bytes = png) {
  const { school, student } = await mediaSchool();
  const ticket = await presigned(student, { kind: "image", filename: "a.png", declared_size: bytes.length, declared_mime: "image/png" });
  return { school, student, ticket };
}

describe("POST /media/:id/upload (worker mode)", () => {
  it("refuses a tampered form with 403 upload_signature_invalid and stores nothing", async () => {
    const { ticket } = await ticketFor();
    const other = await mediaSchool();
    const bigger = png.length + 1;
    const tampered: Record<string, string>[] = [
      { ...ticket.form_data, size: String(bigger) },
      { ...ticket.form_data, expires: String(Number(ticket.form_data.expires) + 3600) },
      { ...ticket.form_data, tenant_id: other.school.id },
      { ...ticket.form_data, signature: ticket.form_data.signature!.replace(/^./, (c) => (c === "0" ? "1" : "0")) },
    ];
    for (const fields of tampered) {
      const res = await postForm(ticket.upload_url, fields, fields.size === String(bigger) ? new Uint8Array([...png, 0]) : png);
      expect(failure(res)).toEqual({ status: 403, error: "upload_signature_invalid" });
    }
    // The form of one asset does not open another asset's upload.
    const second = await presigned(other.admin, { kind: "image", filename: "b.png", declared_size: png.length, declared_mime: "image/png" });
    expect(failure(await postForm(second.upload_url, ticket.form_data, png))).toEqual({ status: 403, error: "upload_signature_invalid" });
    expect(await objectOf(ticket.object_key)).toBeNull();
    expect(await objectOf(second.object_key)).toBeNull();
  });

  it("refuses an expired form with 403 upload_expired and stores nothing", async () => {
    const { ticket } = await ticketFor();
    const expiresAt = Number(ticket.form_data.expires) * 1000;
    setClockForTests({ now: () => expiresAt + 1000 });
    expect(failure(await postForm(ticket.upload_url, ticket.form_data, png))).toEqual({ status: 403, error: "upload_expired" });
    expect(await objectOf(ticket.object_key)).toBeNull();
    // Up to the second it names, the form works.
    setClockForTests({ now: () => expiresAt });
    expect((await postForm(ticket.upload_url, ticket.form_data, png)).status).toBe(200);
  });

  it("cuts a file larger than declared off at the declared size: 400 upload_size_mismatch, nothing stored, nothing counted", async () => {
    const { school, student, ticket } = await ticketFor();
    await setQuota(school.id, png.length);
    const larger = new Uint8Array(png.length + 200_000);
    larger.set(png);
    const res = await postForm(ticket.upload_url, ticket.form_data, larger);
    expect(failure(res)).toEqual({ status: 400, error: "upload_size_mismatch" });
    expect(res.body.message).toContain("larger than the declared");
    expect(await objectOf(ticket.object_key)).toBeNull();
    expect(failure(await confirm(student, ticket.media_asset_id))).toEqual({ status: 400, error: "confirm_failed" });
    // The quota is whole: the right file still fits.
    expect((await postForm(ticket.upload_url, ticket.form_data, png)).status).toBe(200);
    expect((await confirm(student, ticket.media_asset_id)).status).toBe(200);
  });

  it("refuses a file shorter than declared (400 upload_size_mismatch) and stores nothing", async () => {
    const { ticket } = await ticketFor();
    expect(failure(await postForm(ticket.upload_url, ticket.form_data, png.subarray(0, png.length - 1)))).toEqual({ status: 400, error: "upload_size_mismatch" });
    expect(await objectOf(ticket.object_key)).toBeNull();
  });

  it("400 invalid_upload_form: not multipart, no file, file before the fields, a part after the file, missing fields; nothing stored", async () => {
    const { ticket } = await ticketFor();
    const { signature: _signature, ...unsigned } = ticket.form_data;
    const attempts = [
      await postForm(ticket.upload_url, ticket.form_data, null),
      await postForm(ticket.upload_url, ticket.form_data, png, { fileFirst: true }),
      await postForm(ticket.upload_url, ticket.form_data, png, { after: { note: "late" } }),
      await postForm(ticket.upload_url, unsigned, png),
      await postForm(ticket.upload_url, { ...ticket.form_data, size: "01" }, png),
      readResponse(await SELF.fetch(ticket.upload_url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }), { method: "POST", path: new URL(ticket.upload_url).pathname }),
    ];
    for (const res of await Promise.all(attempts)) expect(failure(res)).toEqual({ status: 400, error: "invalid_upload_form" });
    expect(await objectOf(ticket.object_key)).toBeNull();
  });

  it("409 upload_not_pending once the asset is confirmed: the confirmed bytes cannot be swapped", async () => {
    const { student } = await mediaSchool();
    const ticket = await presigned(student, { kind: "image", filename: "a.png", declared_size: png.length, declared_mime: "image/png" });
    expect((await postForm(ticket.upload_url, ticket.form_data, png)).status).toBe(200);
    expect((await confirm(student, ticket.media_asset_id)).status).toBe(200);
    const swapped = new Uint8Array(png.length).fill(60);
    expect(failure(await postForm(ticket.upload_url, ticket.form_data, swapped))).toEqual({ status: 409, error: "upload_not_pending" });
    expect((await objectOf(ticket.object_key))?.size).toBe(png.length);
  });

  it("404 media_not_found for a deleted asset; 400 invalid_id_format for a malformed id", async () => {
    const { admin } = await mediaSchool();
    const asset = await confirmedAsset(admin, "image", png);
    const ticket = await presigned(admin, { kind: "image", filename: "a.png", declared_size: png.length, declared_mime: "image/png" });
    await db().update(schema.mediaAssets).set({ deletedAt: Date.now() }).where(eq(schema.mediaAssets.id, ticket.media_asset_id));
    expect(failure(await postForm(ticket.upload_url, ticket.form_data, png))).toEqual({ status: 404, error: "media_not_found" });
    expect(await objectOf(ticket.object_key)).toBeNull();
    expect(asset.status).toBe("confirmed");
    expect(failure(await postForm(ticket.upload_url.replace(ticket.media_asset_id, "nope"), ticket.form_data, png))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("streams a file of several megabytes (more than one network chunk) intact", async () => {
    const { student } = await mediaSchool();
    const big = new Uint8Array(3 * 1024 * 1024 + 17);
    big.set(FIXTURES.pdf);
    for (let i = FIXTURES.pdf.length; i < big.length; i++) big[i] = (i * 31) & 0xff;
    const ticket = await presigned(student, { kind: "document", filename: "big.bin", declared_size: big.length, declared_mime: "application/pdf" });
    expect((await postForm(ticket.upload_url, ticket.form_data, big)).status).toBe(200);
    const object = await env.MEDIA.get(ticket.object_key);
    const digest = async (bytes: ArrayBuffer | Uint8Array) => toHex(await crypto.subtle.digest("SHA-256", bytes));
    expect(await digest(await object!.arrayBuffer())).toBe(await digest(big));
  });
});
