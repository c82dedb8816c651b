import { and, eq, isNull } from "drizzle-orm";
import type { QueueMessage } from "../../core/env";
import type { SchoolActor, SchoolCtx, ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { mediaAssets, type MediaKind } from "../../db/schema";
import { handleSchoolMessages } from "../schools/school-messages";
import { ebmlDuration } from "./metadata/ebml";
import { mp4Duration } from "./metadata/mp4";
import { pdfPageCount } from "./metadata/pdf";
import { blockReader, r2Reader, type RangeReader } from "./metadata/reader";
import { inSchool } from "../../core/db/conditions";

/** wrangler.toml: the queue confirm sends `media_metadata` messages to. */
export const MEDIA_METADATA_QUEUE = "lms-media-metadata";

const ISO_BMFF = new Set(["video/mp4", "video/quicktime", "video/x-m4v", "video/3gpp", "video/3gpp2"]);
const EBML = new Set(["video/webm", "video/matroska"]);

export interface MediaMetadata {
  durationSeconds?: number;
  totalPages?: number;
}

/** Whole seconds, and at least 1 for anything that lasts at all. */
const wholeSeconds = (seconds: number) => Math.max(1, Math.round(seconds));

/**
 * Page count of a pdf, duration of an MP4/MOV or WebM/Matroska video; null when the kind has
 * none or the file cannot be read (never an error: the asset is confirmed either way).
 */
export async function readMetadata(kind: MediaKind, mime: string, reader: RangeReader): Promise<MediaMetadata | null> {
  try {
    if (kind === "pdf") return { totalPages: await pdfPageCount(reader) };
    if (kind !== "video") return null;
    const seconds = ISO_BMFF.has(mime) ? await mp4Duration(reader) : EBML.has(mime) ? await ebmlDuration(reader) : null;
    return seconds === null || !Number.isFinite(seconds) || seconds <= 0 ? null : { durationSeconds: wholeSeconds(seconds) };
  } catch (err) {
    log.info("media metadata unreadable", { kind, mime, error: String(err) });
    return null;
  }
}

/** Reads the asset's object by ranges and stores what it finds, only onto the version that was confirmed. */
export async function extractMetadata(ctx: SchoolCtx<SchoolActor>, target: { assetId: string }): Promise<void> {
  const where = and(eq(mediaAssets.id, target.assetId), inSchool(mediaAssets, ctx.tenantId), isNull(mediaAssets.deletedAt));
  const [row] = await ctx.db
    .select()
    .from(mediaAssets)
    .where(and(where, eq(mediaAssets.status, "confirmed")))
    .limit(1);
  if (!row?.etag) return;
  const found = await readMetadata(row.kind, row.mime, blockReader(r2Reader(ctx.env.MEDIA, row.objectKey, row.etag, row.sizeBytes)));
  if (!found) return;
  await ctx.db
    .update(mediaAssets)
    .set({ ...found, updatedAt: ctx.clock.now() })
    .where(and(where, eq(mediaAssets.etag, row.etag)));
}

/**
 * The media queue's consumer (the shared loop: `handleSchoolMessages`); a school deleted meanwhile
 * has nothing left to describe. `ctx` is the job's context (src/contributors.ts, `jobContext`),
 * built by the Worker entry.
 */
export function handleMediaMetadataBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  return handleSchoolMessages(batch, ctx, {
    kind: "media_metadata",
    name: "media metadata",
    valid: (body) => isUuid(body.asset_id),
    logged: (body) => ({ asset_id: body.asset_id }),
    run: (school, body) => extractMetadata(school, { assetId: body.asset_id }),
  });
}
