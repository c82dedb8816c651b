import { z } from "@hono/zod-openapi";
import { uuidField } from "../../core/http/fields";

export const DataExportCreated = z
  .object({
    id: z.string(),
    status: z.literal("pending"),
    created_at: z.string(),
  })
  .openapi("DataExportCreated");

export const DataExport = z
  .object({
    id: z.string(),
    user_id: z.string(),
    status: z.enum(["pending", "ready", "failed"]),
    created_at: z.string(),
    ready_at: z.string().nullable(),
    expires_at: z.string().nullable().openapi({ description: "ready_at + 7 days; the file is deleted then" }),
    download_url: z.string().nullable().openapi({ description: "a signed link valid one hour (at most until expires_at), only when ready" }),
    size_bytes: z.number().int().nullable(),
  })
  .openapi("DataExport");

export const DownloadQuery = z.object({
  school: uuidField,
  exp: z.coerce.number().int().min(0).max(99_999_999_999),
  sig: z.string().regex(/^[0-9a-fA-F]{64}$/),
});
