import { and, eq, isNull } from "drizzle-orm";
import type { ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { mediaAssets } from "../../db/schema";
import { mediaErrors } from "./errors";
import { inEveryDatabase } from "../../core/db/client";
import { formBoundary, MultipartError, readFormUntilFile } from "./multipart";
import { objectKey } from "./policy";
import { verifyUploadForm } from "./upload-form";
import { inSchool } from "../../core/db/conditions";

class SizeMismatch extends Error {}

/**
 * POST /media/:id/upload (MEDIA_UPLOAD_MODE=worker): the browser form a presign described. The
 * signed fields are checked before a byte of the file is read; the file then streams into R2
 * through a stream of exactly the declared length, so a longer file is cut off at that length
 * and a shorter one fails, and in both cases R2 keeps nothing (a put is all or nothing).
 * Nothing is counted here: the quota is confirm's.
 */
export async function uploadThroughWorker(ctx: ServiceContext, input: { id: string; request: Request }) {
  const boundary = formBoundary(input.request.headers.get("content-type"));
  if (!boundary || !input.request.body) throw new ApiError(mediaErrors.INVALID_UPLOAD_FORM);
  let form;
  try {
    form = await readFormUntilFile(input.request.body, boundary);
  } catch (err) {
    if (err instanceof MultipartError) throw new ApiError(mediaErrors.INVALID_UPLOAD_FORM, { message: `The upload form is invalid: ${err.message}.` });
    throw err;
  }
  try {
    const check = await verifyUploadForm(ctx.config, input.id, form.fields);
    if (!check.ok) throw new ApiError(check.reason === "signature" ? mediaErrors.UPLOAD_SIGNATURE_INVALID : mediaErrors.INVALID_UPLOAD_FORM);
    const { grant } = check;
    if (grant.expires * 1000 < ctx.clock.now()) throw new ApiError(mediaErrors.UPLOAD_EXPIRED);
    // The signed form names the school but not its shard: every shard is asked at once rather than the control database first.
    const [row] = await inEveryDatabase(ctx.env, (db) =>
      db
        .select({ status: mediaAssets.status })
        .from(mediaAssets)
        .where(and(eq(mediaAssets.id, grant.assetId), inSchool(mediaAssets, grant.tenantId), isNull(mediaAssets.deletedAt)))
        .limit(1),
    );
    if (!row) throw new ApiError(mediaErrors.MEDIA_NOT_FOUND);
    if (row.status !== "pending") throw new ApiError(mediaErrors.UPLOAD_NOT_PENDING, { message: `The media asset is ${row.status}; it no longer accepts an upload.` });
    await streamIntoBucket(ctx.env.MEDIA, objectKey(grant.tenantId, grant.assetId), form.file, grant.size);
    return { media_asset_id: grant.assetId, size: grant.size };
  } finally {
    await form.cancel();
  }
}

async function streamIntoBucket(bucket: R2Bucket, key: string, file: ReadableStream<Uint8Array>, size: number): Promise<void> {
  // R2 takes a stream only when its length is known; this one has the declared length.
  const { readable, writable } = new FixedLengthStream(size);
  const stored = bucket.put(key, readable);
  const writer = writable.getWriter();
  let written = 0;
  try {
    for await (const chunk of file) {
      written += chunk.byteLength;
      if (written > size) throw new SizeMismatch();
      await writer.write(chunk);
    }
    if (written !== size) throw new SizeMismatch();
    await writer.close();
  } catch (err) {
    await writer.abort(err).catch(() => undefined);
    await stored.catch(() => undefined);
    await file.cancel().catch(() => undefined);
    if (err instanceof SizeMismatch) {
      throw new ApiError(mediaErrors.UPLOAD_SIZE_MISMATCH, {
        message: written > size ? `The file is larger than the declared ${size} bytes.` : `The file has ${written} bytes; ${size} were declared.`,
      });
    }
    if (err instanceof MultipartError) throw new ApiError(mediaErrors.INVALID_UPLOAD_FORM, { message: `The upload form is invalid: ${err.message}.` });
    throw err;
  }
  await stored;
}
