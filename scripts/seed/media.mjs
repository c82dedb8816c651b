import { runWrangler } from "../lib/project.mjs";
import { upsert } from "../lib/sql.mjs";
import { CONTROL, DEMO, id } from "./demo.mjs";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { deflateSync } from "node:zlib";
import path from "node:path";

/** The demo media: a logo and a handout, written to R2 the way an upload lands. */

const MEDIA_BUCKET = "lms-media";

function crc32(bytes) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A 64×64 PNG in the demo's blue with a white band: the school logo. */
function logoPng() {
  const size = 64;
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = [0];
    for (let x = 0; x < size; x++) row.push(...(y >= 24 && y < 40 ? [255, 255, 255] : [0x1f, 0x6f, 0xeb]));
    rows.push(...row);
  }
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.from(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A two-page PDF (classic xref table): the course handout. */
function handoutPdf() {
  const pages = ["Welcome to Demo School", "Page two: how to submit assignments"];
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", `<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i} 0 R`).join(" ")}] /Count ${pages.length} >>`];
  const font = 3 + pages.length * 2;
  pages.forEach((_, i) => objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents ${3 + pages.length + i} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`));
  pages.forEach((text) => {
    const content = `BT /F1 20 Tf 60 760 Td (${text}) Tj ET`;
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  });
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  let out = "%PDF-1.4\n";
  const offsets = objects.map((object, i) => {
    const offset = out.length;
    out += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return { bytes: Buffer.from(out, "latin1"), pages: pages.length };
}

/** The demo school's uploaded files: the logo (an image asset the school record points to) and a pdf. */
function demoFiles() {
  const handout = handoutPdf();
  return [
    { id: DEMO.logoAssetId, kind: "image", filename: "demo-logo.png", mime: "image/png", bytes: logoPng(), totalPages: null },
    { id: DEMO.handoutAssetId, kind: "pdf", filename: "welcome-handout.pdf", mime: "application/pdf", bytes: handout.bytes, totalPages: handout.pages },
  ].map((file) => ({
    ...file,
    key: `tenant/${DEMO.tenantId}/${file.id}`,
    // R2's etag of a single-part upload is the MD5 of the bytes; downloads ask for exactly that version.
    etag: createHash("md5").update(file.bytes).digest("hex"),
  }));
}

/** Confirmed asset rows for the demo files, and the school's logo pointing to the image (unless an admin changed it). */
export function media({ now }) {
  const statements = demoFiles().map((file) =>
    upsert(
      "media_assets",
      {
        id: file.id,
        tenant_id: DEMO.tenantId,
        kind: file.kind,
        filename: file.filename,
        declared_size: file.bytes.length,
        declared_mime: file.mime,
        size_bytes: file.bytes.length,
        mime: file.mime,
        status: "confirmed",
        object_key: file.key,
        etag: file.etag,
        duration_seconds: null,
        total_pages: file.totalPages,
        uploaded_by_user_id: DEMO.admin.id,
        confirmed_at: now,
        object_purged_at: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      },
      { restore: ["tenant_id", "size_bytes", "mime", "status", "object_key", "etag", "object_purged_at", "deleted_at"], touch: "updated_at" },
    ),
  );
  return {
    [DEMO.shard]: statements,
    [CONTROL]: [`UPDATE "tenants" SET "logo" = '${DEMO.logoAssetId}' WHERE "id" = '${DEMO.tenantId}' AND "logo" IS NULL;`],
  };
}

/** Puts the demo files into the bucket (local state, or the deployed bucket with `{ remote: true }`); a put of the same bytes changes nothing. */
export async function putDemoObjects(target) {
  const dir = await mkdtemp(path.join(tmpdir(), "lms-media-"));
  try {
    for (const file of demoFiles()) {
      const local = path.join(dir, file.id);
      await writeFile(local, file.bytes);
      const where = target.remote ? ["--remote"] : target.persistTo ? ["--local", "--persist-to", target.persistTo] : ["--local"];
      await runWrangler(["r2", "object", "put", `${MEDIA_BUCKET}/${file.key}`, "--file", local, "--content-type", file.mime, ...where], { quiet: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
