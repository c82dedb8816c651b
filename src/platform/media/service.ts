import { platformOf } from "../../core/school";
import { loadSchool } from "../schools/lookup";
import { and, eq, sql, type SQL } from "drizzle-orm";
import { publicLink } from "../../core/http/public-links";
import { batchable, changedRows, insertWhere, rowsOf, runBatch } from "../../core/db/batch";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx, TenantSummary } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { MEDIA_KINDS, mediaAssets, type MediaKind } from "../../db/schema";
import { reachableAsset } from "./access";
import { mediaErrors } from "./errors";
import { inspectContent, SNIFF_BYTES } from "./inspect";
import { KIND_CAPS, objectKey, UPLOAD_TTL_SECONDS } from "./policy";
import { presentAsset } from "./present";
import { presignedPutUrl } from "./r2-presign";
import { signUploadForm } from "./upload-form";
import { inSchool } from "../../core/db/conditions";

type AssetRow = typeof mediaAssets.$inferSelect;

/**
 * Bytes the school's confirmed, live assets take. One indexed sum inside the statement that
 * needs it: a write conditional on it cannot be overtaken by another write (D1 runs statements
 * one at a time), so no counter can drift.
 */
export function usedBytes(tenantId: string): SQL<number> {
  return sql<number>`(SELECT coalesce(sum(u.size_bytes), 0) FROM media_assets AS u WHERE ${inSchool("u", tenantId)} AND u.status = 'confirmed' AND u.deleted_at IS NULL)`;
}

/** The school's quota, from its context (the control database's school row, read with the caller's authentication). */
export function capBytes(tenant: Pick<TenantSummary, "storageCapBytes">): number {
  return tenant.storageCapBytes;
}

const isKind = (value: string): value is MediaKind => (MEDIA_KINDS as readonly string[]).includes(value);

export function checkCap(kind: MediaKind, size: number, what: string): void {
  const cap = KIND_CAPS[kind];
  if (size > cap) throw new ApiError(mediaErrors.OVERSIZE_CAP, { message: `${what} (${size} bytes) is over the ${kind} cap of ${cap} bytes.` });
}

export interface PresignInput {
  kind: string;
  filename: string;
  declared_size: number;
  declared_mime: string;
}

/** The live asset `id` of the school if the caller may reach it (./access.ts), else 404 `media_not_found`. */
async function reachableRow(ctx: SchoolCtx, id: string): Promise<AssetRow> {
  const [row] = await ctx.db
    .select()
    .from(mediaAssets)
    .where(and(liveRowWhere(mediaAssets, ctx.tenantId, id), reachableAsset(ctx)))
    .limit(1);
  if (!row) throw new ApiError(mediaErrors.MEDIA_NOT_FOUND);
  return row;
}

/**
 * POST /t/media/presign: a pending asset and where to upload its bytes. The quota check and the
 * insert are one conditional statement against the school's quota (from its context); its batch
 * also reads the usage, so a refusal can say why without another round trip.
 */
export async function presignUpload(ctx: SchoolCtx, input: { body: PresignInput }) {
  const { body } = input;
  if (!isKind(body.kind)) throw new ApiError(mediaErrors.INVALID_KIND);
  checkCap(body.kind, body.declared_size, "declared_size");
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const key = objectKey(ctx.tenantId, id);
  const [inserted, usage] = await runBatch(ctx, [
    insertWhere(
      ctx,
      mediaAssets,
      {
        id,
        tenantId: ctx.tenantId,
        kind: body.kind,
        filename: body.filename,
        declaredSize: body.declared_size,
        declaredMime: body.declared_mime,
        sizeBytes: body.declared_size,
        mime: body.declared_mime,
        status: "pending",
        objectKey: key,
        uploadedByUserId: ctx.actor.userId,
        createdAt: now,
        updatedAt: now,
      },
      sql`${usedBytes(ctx.tenantId)} + ${body.declared_size} <= ${capBytes(ctx.tenant)}`,
    ),
    batchable(ctx, sql`SELECT ${usedBytes(ctx.tenantId)} AS used`),
  ]);
  if (changedRows(inserted) === 0) {
    const used = rowsOf<{ used: number }>(usage)[0]?.used ?? 0;
    const cap = capBytes(ctx.tenant);
    throw new ApiError(mediaErrors.STORAGE_QUOTA_EXCEEDED, {
      message: `The school's storage quota of ${cap} bytes has ${Math.max(0, cap - used)} bytes free; the file declares ${body.declared_size}.`,
    });
  }
  // The school row is in the control database, so the shard's insert cannot be conditional on it:
  // a school deleted meanwhile is found here, and the pending asset is taken back.
  if (!(await loadSchool(platformOf(ctx), ctx.tenantId))) {
    await ctx.db.delete(mediaAssets).where(and(eq(mediaAssets.id, id), inSchool(mediaAssets, ctx.tenantId)));
    throw new ApiError(mediaErrors.TENANT_NOT_FOUND);
  }
  const expires = Math.floor(now / 1000) + UPLOAD_TTL_SECONDS;
  const media = ctx.config.media;
  const target =
    media.uploadMode === "r2"
      ? { upload_url: await presignedPutUrl(media, key, UPLOAD_TTL_SECONDS, now), upload_method: "PUT" as const, form_data: {} }
      : {
          upload_url: publicLink(ctx, `/api/v1/media/${id}/upload`),
          upload_method: "POST" as const,
          form_data: await signUploadForm(ctx.config, { tenantId: ctx.tenantId, assetId: id, size: body.declared_size, expires }),
        };
  return { media_asset_id: id, ...target, object_key: key, expires_in: UPLOAD_TTL_SECONDS };
}

/**
 * POST /t/media/:id/confirm: the real check. Size from R2, type from the content's first bytes,
 * then one conditional UPDATE that also holds the quota, so of two confirms racing for the last
 * free bytes exactly one succeeds. A file that can never pass (too large, wrong type) is removed
 * from R2 and the asset stays pending: a new upload within the form's lifetime may still be
 * confirmed, and the cron fails it otherwise. Confirming a confirmed asset answers it again.
 */
export async function confirmUpload(ctx: SchoolCtx, input: { id: string }) {
  const row = await reachableRow(ctx, input.id);
  if (row.status === "confirmed") return presentAsset(ctx, row);
  if (row.status === "failed") throw new ApiError(mediaErrors.CONFIRM_FAILED, { message: "The upload window of this asset has closed; presign again." });
  const bucket = ctx.env.MEDIA;
  const head = await bucket.head(row.objectKey);
  if (!head) throw new ApiError(mediaErrors.CONFIRM_FAILED);
  if (head.size > row.declaredSize) {
    await bucket.delete(row.objectKey);
    throw new ApiError(mediaErrors.OVERSIZE_CAP, { message: `The uploaded file (${head.size} bytes) is larger than its declared_size (${row.declaredSize}).` });
  }
  try {
    checkCap(row.kind, head.size, "The uploaded file");
  } catch (err) {
    await bucket.delete(row.objectKey);
    throw err;
  }
  // The sample is read from exactly the version measured above.
  const sample = await bucket.get(row.objectKey, { range: { offset: 0, length: SNIFF_BYTES }, onlyIf: { etagMatches: head.etag } });
  if (!sample || !("body" in sample)) throw new ApiError(mediaErrors.CONFIRM_FAILED, { message: "The file changed while it was checked; confirm again." });
  const verdict = await inspectContent(row.kind, new Uint8Array(await sample.arrayBuffer()), row.declaredMime);
  if (!verdict.accepted) {
    await bucket.delete(row.objectKey);
    throw new ApiError(mediaErrors.MIME_MISMATCH, {
      message: `The file's content (${verdict.detected ?? "unrecognised"}) is not a valid ${row.kind}.`,
    });
  }
  const now = ctx.clock.now();
  const [updated, current] = await runBatch(ctx, [
    ctx.db
      .update(mediaAssets)
      .set({ status: "confirmed", sizeBytes: head.size, mime: verdict.mime, etag: head.etag, confirmedAt: now, updatedAt: now })
      .where(
        and(
          liveRowWhere(mediaAssets, ctx.tenantId, row.id),
          eq(mediaAssets.status, "pending"),
          sql`${head.size} + ${usedBytes(ctx.tenantId)} <= ${capBytes(ctx.tenant)}`,
        ),
      )
      .returning(),
    ctx.db.select().from(mediaAssets).where(liveRowWhere(mediaAssets, ctx.tenantId, row.id)),
  ]);
  const confirmed = (updated as AssetRow[])[0];
  if (confirmed) {
    await scheduleMetadata(ctx, confirmed);
    return presentAsset(ctx, confirmed);
  }
  const latest = (current as AssetRow[])[0];
  if (!latest) throw new ApiError(mediaErrors.MEDIA_NOT_FOUND);
  // A concurrent confirm of the same asset got there first.
  if (latest.status === "confirmed") return presentAsset(ctx, latest);
  if (latest.status === "failed") throw new ApiError(mediaErrors.CONFIRM_FAILED, { message: "The upload window of this asset has closed; presign again." });
  throw new ApiError(mediaErrors.STORAGE_QUOTA_EXCEEDED, { message: `The school's storage quota has no room for ${head.size} more bytes.` });
}

/** Page count (pdf) and duration (video) are read after confirm by the media queue; a lost message only leaves them null. */
export async function scheduleMetadata(ctx: SchoolCtx, row: Pick<AssetRow, "id" | "kind" | "tenantId">): Promise<void> {
  if (row.kind !== "pdf" && row.kind !== "video") return;
  try {
    await ctx.env.MEDIA_METADATA.send({ kind: "media_metadata", tenant_id: row.tenantId, asset_id: row.id });
  } catch (err) {
    log.warn("media metadata not queued", { request_id: ctx.requestId, asset_id: row.id, error: String(err) });
  }
}

/**
 * GET /t/media/:id: the asset with a fresh link once confirmed; pending and failed assets answer
 * 409 `media_not_confirmed` with the same metadata in `data` and an empty link.
 */
export async function getAsset(ctx: SchoolCtx, input: { id: string }) {
  const row = await reachableRow(ctx, input.id);
  const asset = await presentAsset(ctx, row);
  if (row.status !== "confirmed") {
    throw new ApiError(mediaErrors.MEDIA_NOT_CONFIRMED, { message: `The media asset is ${row.status}.`, data: asset });
  }
  return asset;
}
