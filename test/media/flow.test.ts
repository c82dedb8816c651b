import { describe, expect, it } from "vitest";
import { assetRow, confirm, confirmedAsset, download, FIXTURES, getAsset, mediaSchool, objectOf, postForm, presigned, type Kind } from "./helpers";

const LINK = /^https:\/\/api\.lms\.localhost\/api\/v1\/media\/[0-9a-f-]{36}\/download\?exp=\d+&sig=[0-9a-f]{64}$/;

describe("media flow: presign, upload, confirm, read, download", () => {
  const cases: { kind: Kind; bytes: Uint8Array; declaredMime: string; filename: string; mime: string; disposition: "inline" | "attachment" }[] = [
    { kind: "image", bytes: FIXTURES.png, declaredMime: "image/png", filename: "logo.png", mime: "image/png", disposition: "inline" },
    { kind: "pdf", bytes: FIXTURES.pdf, declaredMime: "application/pdf", filename: "notes.pdf", mime: "application/pdf", disposition: "inline" },
    { kind: "video", bytes: FIXTURES.mp4, declaredMime: "video/mp4", filename: "clip.mp4", mime: "video/mp4", disposition: "inline" },
    { kind: "video", bytes: FIXTURES.webm, declaredMime: "video/webm", filename: "clip.webm", mime: "video/webm", disposition: "inline" },
    { kind: "document", bytes: FIXTURES.pdf, declaredMime: "application/pdf", filename: "handout.pdf", mime: "application/pdf", disposition: "inline" },
    { kind: "document", bytes: new TextEncoder().encode("a,b\n1,2\n"), declaredMime: "text/csv", filename: "marks.csv", mime: "text/csv", disposition: "attachment" },
  ];

  for (const item of cases) {
    it(`${item.kind} (${item.filename}): pending after presign, confirmed with the real size and type, served from a signed link`, async () => {
      const { student } = await mediaSchool();
      const ticket = await presigned(student, { kind: item.kind, filename: item.filename, declared_size: item.bytes.length, declared_mime: item.declaredMime });
      expect(ticket).toEqual({
        media_asset_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        upload_url: `https://api.lms.localhost/api/v1/media/${ticket.media_asset_id}/upload`,
        upload_method: "POST",
        form_data: { tenant_id: student.tenantId, size: String(item.bytes.length), expires: expect.stringMatching(/^\d+$/), signature: expect.stringMatching(/^[0-9a-f]{64}$/) },
        object_key: `tenant/${student.tenantId}/${ticket.media_asset_id}`,
        expires_in: 3600,
      });
      expect(Number(ticket.form_data.expires) - Math.floor(Date.now() / 1000)).toBeGreaterThan(3500);
      const pending = await assetRow(ticket.media_asset_id);
      expect(pending).toMatchObject({ status: "pending", uploadedByUserId: student.id, filename: item.filename, sizeBytes: item.bytes.length });

      const upload = await postForm(ticket.upload_url, ticket.form_data, item.bytes);
      expect(upload.status).toBe(200);
      expect(upload.body.data).toEqual({ media_asset_id: ticket.media_asset_id, size: item.bytes.length });
      expect((await objectOf(ticket.object_key))?.size).toBe(item.bytes.length);

      const confirmed = await confirm(student, ticket.media_asset_id);
      expect(confirmed.status).toBe(200);
      expect(confirmed.body.data).toEqual({
        id: ticket.media_asset_id,
        kind: item.kind,
        filename: item.filename,
        size: item.bytes.length,
        mime: item.mime,
        status: "confirmed",
        duration_seconds: null,
        total_pages: null,
        presigned_url: expect.stringMatching(LINK),
        expires_in: 3600,
        created_at: expect.any(String),
      });

      const read = await getAsset(student, ticket.media_asset_id);
      expect(read.status).toBe(200);
      expect(read.body.data).toMatchObject({ id: ticket.media_asset_id, status: "confirmed", presigned_url: expect.stringMatching(LINK) });

      const { response, bytes } = await download(read.body.data.presigned_url);
      expect(response.status).toBe(200);
      expect(bytes).toEqual(item.bytes);
      expect(response.headers.get("content-type")).toBe(item.mime);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-security-policy")).toMatch(/^sandbox(;|$)/);
      expect(response.headers.get("content-disposition")).toBe(`${item.disposition}; filename="${item.filename}"; filename*=UTF-8''${item.filename}`);
    });
  }

  it("confirming twice answers the confirmed asset again", async () => {
    const { admin } = await mediaSchool();
    const asset = await confirmedAsset(admin, "image", FIXTURES.png);
    const again = await confirm(admin, asset.id);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: asset.id, status: "confirmed", size: FIXTURES.png.length });
  });
});
