import { statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEMO } from "../seed/demo.mjs";
import { PEOPLE, pick } from "./lib/tour.mjs";

export const summary = "an upload in three steps (presign, send, confirm), a signed download, a refused SVG, the seeded files";

/** Uploads a new text file each run (the demo school has room for many) from the tour's own temp dir. */
export async function run(t) {
  const ada = await t.login(PEOPLE.admin);
  const dir = await t.tempDir();

  t.section("1. Presign: what the file is and its exact size");
  const file = path.join(dir, "tour notes.txt");
  await writeFile(file, `Notes from the media tour, ${new Date().toISOString()}\n`);
  const size = statSync(file).size;
  const presign = await t.step("Presign a document", {
    method: "POST",
    who: ada,
    path: "/t/media/presign",
    body: { kind: "document", filename: "tour notes.txt", declared_size: size, declared_mime: "text/plain" },
    expect: [200, 201],
    show: (json) => ({ ...pick(json.data, ["media_asset_id", "upload_method", "object_key", "expires_in"]), fields: Object.keys(json.data.form_data ?? {}) }),
  });
  const id = presign.data.media_asset_id;

  t.section("2. Upload (worker mode): the form fields, then the file last");
  await upload(t, presign.data, { file, type: "text/plain" });

  t.section("3. Confirm: the real size and type, read from the stored object");
  await t.step("Confirm", { method: "POST", who: ada, path: `/t/media/${id}/confirm`, show: (json) => pick(json.data, ["status", "size", "mime"]) });

  t.section("4. Read and download: a fresh signed link (a path on the API), valid for an hour");
  const asset = await t.step("The asset", { who: ada, path: `/t/media/${id}`, show: (json) => pick(json.data, ["status", "filename", "presigned_url"]) });
  const link = new URL(asset.data.presigned_url, t.origin);
  await t.step("Download through the link (no auth)", { path: `${link.pathname}${link.search}`, absolute: true });
  for (const name of ["content-type", "content-disposition", "content-security-policy", "x-content-type-options"]) t.note(`${name}: ${t.lastHeaders.get(name)}`);

  t.section("The type comes from the bytes: an SVG presented as an image is refused and stays pending");
  const svg = path.join(dir, "x.svg");
  await writeFile(svg, '<svg xmlns="http://www.w3.org/2000/svg"/>');
  const svgPresign = await t.step("Presign an 'image'", {
    method: "POST",
    who: ada,
    path: "/t/media/presign",
    body: { kind: "image", filename: "x.svg", declared_size: statSync(svg).size, declared_mime: "image/png" },
    expect: [200, 201],
    show: (json) => pick(json.data, ["media_asset_id", "upload_method"]),
  });
  await upload(t, svgPresign.data, { file: svg, type: "image/png" });
  await t.step("Confirm: mime_mismatch", { method: "POST", who: ada, path: `/t/media/${svgPresign.data.media_asset_id}/confirm`, expect: 400 });
  await t.step("Still pending", { who: ada, path: `/t/media/${svgPresign.data.media_asset_id}`, expect: 409, show: (json) => ({ error: json.error, status: json.data?.status }) });

  t.section("The seeded files: the school's logo (read as a signed link) and the handout");
  await t.step("Public branding with the logo link", { path: `/public/tenant?subdomain=${DEMO.subdomain}`, show: (json) => json.data.logo });
  await t.step("The handout", { who: ada, path: `/t/media/${DEMO.handoutAssetId}`, show: (json) => pick(json.data, ["filename", "mime", "total_pages"]) });
}

/** Sends the file the way the presign answer says: a multipart POST (worker mode) or a PUT (r2 mode). */
async function upload(t, presigned, file) {
  const url = new URL(presigned.upload_url, t.origin);
  if (presigned.upload_method === "PUT") {
    const bytes = await readFile(file.file);
    const response = await fetch(url, { method: "PUT", body: bytes, headers: { "content-type": file.type } });
    console.log(`\n→ PUT ${url.origin}${url.pathname} (presigned R2)\n← ${response.status}`);
    return;
  }
  // The form posts to this API unless PUBLIC_API_ORIGIN names another host: keep the address as given then.
  await t.step("Upload the form", {
    method: "POST",
    path: url.origin === t.origin ? `${url.pathname}${url.search}` : url.href,
    absolute: true,
    form: { ...presigned.form_data, file: { ...file, filename: path.basename(file.file) } },
    expect: [200, 201, 204],
  });
}
