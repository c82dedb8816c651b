import { z } from "@hono/zod-openapi";
import { plainText, uuidField } from "../../core/http/fields";
import { MEDIA_KINDS } from "../../db/schema";

/**
 * `kind` is any string here so that an unknown one gets the contract's own `invalid_kind` (the
 * service checks it) rather than the body's generic identifier; the document lists the values.
 */
export const PresignBody = z
  .object({
    kind: z.string().max(64).openapi({ enum: [...MEDIA_KINDS], example: "image" }),
    filename: plainText({ min: 1, max: 255 }).openapi({ description: "Display name only; never part of the storage key.", example: "cover.png" }),
    declared_size: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({ description: "The file's size in bytes.", example: 48213 }),
    declared_mime: plainText({ min: 3, max: 127 }).openapi({ description: "Recorded, not trusted: confirm reads the type from the content.", example: "image/png" }),
  })
  .openapi("MediaPresignRequest");

export const PresignResult = z
  .object({
    media_asset_id: z.string().openapi({ format: "uuid" }),
    upload_url: z.string().openapi({ description: "Where to send the file: the Worker's form endpoint (POST) or a presigned R2 URL (PUT)." }),
    upload_method: z.enum(["POST", "PUT"]).openapi({ description: "POST: a multipart form with `form_data`'s fields, then the file as the last part `file`. PUT: the raw bytes." }),
    form_data: z.record(z.string(), z.string()).openapi({ description: "Fields to post before the file (empty for PUT)." }),
    object_key: z.string().openapi({ example: "tenant/0190a6c2-1111-7000-8000-000000000001/0190a6c2-2222-7000-8000-000000000002" }),
    expires_in: z.number().int().openapi({ description: "Seconds the upload address stays valid." }),
  })
  .openapi("MediaPresign");

export const MediaAsset = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    kind: z.enum(MEDIA_KINDS),
    filename: z.string(),
    size: z.number().int().openapi({ description: "Bytes: declared while pending, measured once confirmed." }),
    mime: z.string().openapi({ description: "Declared while pending; read from the content once confirmed." }),
    status: z.enum(["pending", "confirmed", "failed"]),
    duration_seconds: z.number().int().nullable().openapi({ description: "Videos; filled in shortly after confirm, null if unreadable." }),
    total_pages: z.number().int().nullable().openapi({ description: "PDFs; filled in shortly after confirm, null if unreadable." }),
    presigned_url: z.string().openapi({ description: "A signed download link (expires_in seconds) once confirmed; empty otherwise." }),
    expires_in: z.number().int(),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("MediaAsset");

export const UploadResult = z.object({ media_asset_id: z.string().openapi({ format: "uuid" }), size: z.number().int() }).openapi("MediaUpload");

export const DownloadQuery = z.object({
  exp: z.coerce.number().int().min(0).max(99_999_999_999).openapi({ description: "Expiry, unix seconds." }),
  sig: z.string().regex(/^[0-9a-f]{64}$/, "64 lower-case hex digits"),
});

export const IdParam = z.object({ id: uuidField });
