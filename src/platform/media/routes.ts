import { z } from "@hono/zod-openapi";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { downloadAsset } from "./download-service";
import { mediaErrors as e } from "./errors";
import * as s from "./schemas";
import { confirmUpload, getAsset, presignUpload } from "./service";
import { uploadThroughWorker } from "./upload-service";

export const mediaRoutes = createArea();

const tags = ["Media"];

const presignRoute = defineRoute({
  method: "post",
  path: "/t/media/presign",
  audit: { none: "an upload slot for the caller's own file; the change that uses the file is audited" },
  gate: gates.member,
  tags,
  summary: "Start an upload: a pending asset and where to send its bytes (a signed form on this worker, or a presigned R2 PUT URL)",
  request: jsonBody(s.PresignBody),
  failures: [e.INVALID_KIND, e.OVERSIZE_CAP, e.STORAGE_QUOTA_EXCEEDED, e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(s.PresignResult) },
});

mediaRoutes.openapi(presignRoute, async (c) => ok(c, await presignUpload(tenantCtx(c), { body: c.req.valid("json") })));

const confirmRoute = defineRoute({
  method: "post",
  path: "/t/media/{id}/confirm",
  audit: { none: "completes the caller's own upload" },
  gate: gates.member,
  tags,
  summary: "Check the uploaded file (real size, type from its content, quota) and confirm the asset; any body is ignored",
  request: { params: s.IdParam },
  failures: [e.CONFIRM_FAILED, e.OVERSIZE_CAP, e.MIME_MISMATCH, e.STORAGE_QUOTA_EXCEEDED, e.MEDIA_NOT_FOUND],
  responses: { 200: okResponse(s.MediaAsset) },
});

mediaRoutes.openapi(confirmRoute, async (c) => ok(c, await confirmUpload(tenantCtx(c), { id: c.req.valid("param").id })));

const getRoute = defineRoute({
  method: "get",
  path: "/t/media/{id}",
  gate: gates.member,
  tags,
  summary: "An asset's metadata and a fresh download link (409 media_not_confirmed, metadata in data, while pending or failed)",
  request: { params: s.IdParam },
  failures: [e.MEDIA_NOT_FOUND, e.MEDIA_NOT_CONFIRMED],
  responses: { 200: okResponse(s.MediaAsset) },
});

mediaRoutes.openapi(getRoute, async (c) => ok(c, await getAsset(tenantCtx(c), { id: c.req.valid("param").id })));

const uploadRoute = defineRoute({
  method: "post",
  path: "/media/{id}/upload",
  audit: { none: "the bytes of an upload slot (signed link)" },
  gate: gates.public,
  tags,
  summary: "Upload target of MEDIA_UPLOAD_MODE=worker: the presign's form_data fields, then the file as the last part `file`",
  description:
    "A `multipart/form-data` body: the fields of `form_data` (tenant_id, size, expires, signature) in any order, then the " +
    "file part named `file`, last. The fields are signed and expire; the file must be exactly `declared_size` bytes and is " +
    "streamed into storage. No token: the signed form is the authorization. Confirm the asset afterwards.",
  request: { params: s.IdParam },
  failures: [e.INVALID_UPLOAD_FORM, e.UPLOAD_SIZE_MISMATCH, e.UPLOAD_SIGNATURE_INVALID, e.UPLOAD_EXPIRED, e.MEDIA_NOT_FOUND, e.UPLOAD_NOT_PENDING],
  responses: { 200: okResponse(s.UploadResult) },
});

mediaRoutes.openapi(uploadRoute, async (c) => ok(c, await uploadThroughWorker(c.get("services"), { id: c.req.valid("param").id, request: c.req.raw })));

const downloadRoute = defineRoute({
  method: "get",
  path: "/media/{id}/download",
  gate: gates.public,
  tags,
  summary: "The file behind a signed download link (links come from asset reads and expire within the hour)",
  description:
    "Answers with the stored MIME type, `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox`; images, " +
    "pdf and video inline, everything else as an attachment. A single `Range: bytes=` is honoured (206).",
  request: { params: s.IdParam, query: s.DownloadQuery },
  failures: [e.MEDIA_NOT_FOUND, e.LINK_EXPIRED],
  responses: {
    200: { description: "The file's bytes", content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
    206: { description: "The requested byte range", content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
  },
});

mediaRoutes.openapi(downloadRoute, async (c) =>
  downloadAsset(c.get("services"), { id: c.req.valid("param").id, ...c.req.valid("query"), range: c.req.header("range") ?? null }),
);
