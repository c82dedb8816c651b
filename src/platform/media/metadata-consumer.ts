import { and, eq, isNull } from "drizzle-orm";
import type { QueueMessage } from "../../core/env";
import type { SchoolActor, SchoolCtx, ServiceContext } from "../../core/http/context";
import { systemActor } from "../../core/school";
import { isUuid } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { mediaAssets, type MediaKind } from "../../db/schema";
import { forSchoolId } from "../schools/lookup";
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
 * The media queue's consumer. A message the Worker cannot use is dropped with a log line; a
 * crash (D1 unavailable) is retried by the queue. `ctx` is the job's context (src/contributors.ts,
 * `jobContext`), built by the Worker entry.
 */
export async function handleMediaMetadataBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  for (const message of batch.messages) {
    const body = message.body;
    if (body?.kind !== "media_metadata" || !isUuid(body.tenant_id) || !isUuid(body.asset_id)) {
      log.warn("media metadata message dropped", { message_id: message.id });
      message.ack();
      continue;
    }
    try {
      // A school deleted meanwhile has nothing left to describe.
      const school = await forSchoolId(ctx, body.tenant_id, systemActor("media_metadata"));
      if (school) await extractMetadata(school, { assetId: body.asset_id });
      message.ack();
    } catch (err) {
      log.error("media metadata crashed", { asset_id: body.asset_id, message_attempts: message.attempts, error: String(err) });
      message.retry();
    }
  }
}
