import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { uuidv7 } from "../../src/core/lib/ids";
import * as schema from "../../src/db/schema";
import { db } from "../helpers/factories";
import { readResponse, type ApiResponse } from "../helpers/http";
import { as, schoolWithAdmin, signedIn, type Member } from "../helpers/users";
import logoPng from "./fixtures/logo.png?inline";
import threePages from "./fixtures/three-pages.pdf?inline";
import threePagesObjstm from "./fixtures/three-pages-objstm.pdf?inline";
import threePagesLinearized from "./fixtures/three-pages-linearized.pdf?inline";
import threeSeconds from "./fixtures/three-seconds.mp4?inline";
import threeSecondsFaststart from "./fixtures/three-seconds-faststart.mp4?inline";
import twoSeconds from "./fixtures/two-seconds.webm?inline";

const decode = (dataUrl: string) => Uint8Array.from(atob(dataUrl.slice(dataUrl.indexOf(",") + 1)), (char) => char.charCodeAt(0));

/** Real small files made for these tests (see test/media/fixtures/README.md). */
export const FIXTURES = {
  png: decode(logoPng),
  pdf: decode(threePages),
  pdfObjectStreams: decode(threePagesObjstm),
  pdfLinearized: decode(threePagesLinearized),
  mp4: decode(threeSeconds),
  mp4Faststart: decode(threeSecondsFaststart),
  webm: decode(twoSeconds),
  html: new TextEncoder().encode("<!doctype html><html><body><script>alert(document.cookie)</script></body></html>\n"),
  svg: new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>\n'),
};

export type Kind = "image" | "pdf" | "video" | "document";

export interface PresignBody {
  kind: string;
  filename: string;
  declared_size: number;
  declared_mime: string;
}

export const presign = (member: Member, body: unknown) => as(member, "/t/media/presign", { body });

export const confirm = (member: Member, id: string) => as(member, `/t/media/${id}/confirm`, { method: "POST" });

export const getAsset = (member: Member, id: string) => as(member, `/t/media/${id}`);

/**
 * Posts a multipart form to the presign's upload_url: `fields` (the presign's form_data unless
 * overridden) and then the file as the last part, the way a browser form does.
 */
export async function postForm(uploadUrl: string, fields: Record<string, string>, file: Uint8Array | null, options: { fileFirst?: boolean; after?: Record<string, string> } = {}): Promise<ApiResponse> {
  const form = new FormData();
  const addFile = () => file && form.append("file", new File([file], "upload.bin", { type: "application/octet-stream" }));
  if (options.fileFirst) addFile();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (!options.fileFirst) addFile();
  for (const [name, value] of Object.entries(options.after ?? {})) form.append(name, value);
  const response = await SELF.fetch(uploadUrl, { method: "POST", body: form });
  return readResponse(response, { method: "POST", path: new URL(uploadUrl).pathname });
}

/** Presign (status 200 asserted) and return the answer's data. */
export async function presigned(member: Member, body: PresignBody) {
  const res = await presign(member, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as {
    media_asset_id: string;
    upload_url: string;
    upload_method: "POST" | "PUT";
    form_data: Record<string, string>;
    object_key: string;
    expires_in: number;
  };
}

/** Presign and upload `bytes` through the worker form (both asserted), leaving the asset pending. */
export async function uploaded(member: Member, kind: Kind, bytes: Uint8Array, options: { filename?: string; mime?: string } = {}) {
  const ticket = await presigned(member, {
    kind,
    filename: options.filename ?? `file.${kind}`,
    declared_size: bytes.length,
    declared_mime: options.mime ?? "application/octet-stream",
  });
  const res = await postForm(ticket.upload_url, ticket.form_data, bytes);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return ticket;
}

/** The whole flow: presign, upload, confirm; returns the confirmed asset. */
export async function confirmedAsset(member: Member, kind: Kind, bytes: Uint8Array, options: { filename?: string; mime?: string } = {}) {
  const ticket = await uploaded(member, kind, bytes, options);
  const res = await confirm(member, ticket.media_asset_id);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any> & { id: string; presigned_url: string };
}

/** Follows a signed download link (absolute, as the API returns it, or a path on the worker). */
export async function download(link: string, headers: Record<string, string> = {}) {
  const response = await SELF.fetch(new URL(link, "https://api.lms.localhost"), { headers });
  const path = new URL(link, "https://api.lms.localhost").pathname;
  return { response, bytes: new Uint8Array(await response.clone().arrayBuffer()), read: () => readResponse(response, { method: "GET", path }) };
}

export async function assetRow(id: string) {
  const [row] = await db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.id, id));
  return row;
}

export async function setQuota(tenantId: string, bytes: number) {
  await db().update(schema.tenants).set({ storageCapBytes: bytes }).where(eq(schema.tenants.id, tenantId));
}

export const objectOf = (key: string) => env.MEDIA.head(key);

/** A school with a signed-in admin and student. */
export async function mediaSchool() {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  return { school, admin, student };
}

/**
 * An asset of the school (a confirmed PNG image unless told otherwise), written straight to D1
 * and R2 without HTTP or a queue message: for tests of the areas that store media references
 * (avatars, logos) and of the queue consumer.
 */
export async function storedImage(
  tenantId: string,
  options: { kind?: schema.MediaKind; status?: "pending" | "confirmed" | "failed"; bytes?: Uint8Array; mime?: string } = {},
) {
  const now = Date.now();
  const id = uuidv7(now);
  const objectKey = `tenant/${tenantId}/${id}`;
  const bytes = options.bytes ?? FIXTURES.png;
  const mime = options.mime ?? "image/png";
  const object = await env.MEDIA.put(objectKey, bytes);
  await db()
    .insert(schema.mediaAssets)
    .values({
      id,
      tenantId,
      kind: options.kind ?? "image",
      filename: "picture.png",
      declaredSize: bytes.length,
      declaredMime: mime,
      sizeBytes: bytes.length,
      mime,
      status: options.status ?? "confirmed",
      objectKey,
      etag: object!.etag,
      createdAt: now,
      updatedAt: now,
      confirmedAt: now,
    });
  return id;
}
