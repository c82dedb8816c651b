import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, type ErrorDetail, type ErrorEntry } from "../../core/http/errors";
import { plainText } from "../../core/http/fields";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import type { MediaKind } from "../../db/schema";
import { inspectContent, SNIFF_BYTES } from "./inspect";
import { objectKey } from "./policy";
import { capBytes, checkCap, scheduleMetadata, usedBytes } from "./service";

/**
 * Files that arrive inside another endpoint's own request (a submission's multipart body) rather
 * than through presign, upload and confirm. The same rules hold: the type comes from the content
 * (the kind follows it: a recognised image, pdf or video, anything else a document), the kind's
 * size cap, and the school's quota, held by the INSERT that makes the assets confirmed. Use:
 *
 *   const staged = await stageFiles(ctx, files);          // bytes in R2, nothing in D1 yet
 *   … runBatch(ctx, [myWrite(when: stagedFitQuotaSql(…)), stagedAssetsInsert(ctx, staged, when), …])
 *   if the caller's write did not happen: await discardStaged(ctx, staged)
 *   else await afterStaged(ctx, staged)
 *
 * A refused file (over its cap) removes the objects already put, so a refusal stores nothing.
 */

export interface StagedFile {
  id: string;
  kind: MediaKind;
  filename: string;
  size: number;
  declaredMime: string;
  mime: string;
  objectKey: string;
  etag: string;
}

/** Presign's rule for a display name (no control or bidi characters); a longer name is cut to 255 when stored. */
const FILE_NAME = plainText({ max: Number.MAX_SAFE_INTEGER });

/**
 * Refuses the request (the endpoint's `invalid` identifier, details naming each part) when a
 * file's name holds control or bidi characters, as presign refuses such a `filename`: a name
 * like `report\u202Efdp.exe` would display as something it is not. Run before anything is stored.
 */
export function checkFileNames(files: readonly File[], field: string, invalid: ErrorEntry): void {
  const details: ErrorDetail[] = [];
  files.forEach((file, index) => {
    const parsed = FILE_NAME.safeParse(file.name);
    if (!parsed.success) details.push({ path: `${field}.${index}.filename`, message: parsed.error.issues[0]!.message });
  });
  if (details.length > 0) throw new ApiError(invalid, { message: `${details[0]!.path}: ${details[0]!.message}`, details });
}

const KIND_ORDER: readonly MediaKind[] = ["image", "pdf", "video"];

/** The kind and stored MIME type of a file from its first bytes; a document when nothing narrower fits. */
async function classify(head: Uint8Array, declaredMime: string): Promise<{ kind: MediaKind; mime: string }> {
  for (const kind of KIND_ORDER) {
    const verdict = await inspectContent(kind, head, declaredMime);
    if (verdict.accepted) return { kind, mime: verdict.mime };
  }
  const verdict = await inspectContent("document", head, declaredMime);
  return { kind: "document", mime: verdict.accepted ? verdict.mime : "application/octet-stream" };
}

/** Checks each file and puts its bytes into R2 under a new asset id; nothing is written to D1. */
export async function stageFiles(ctx: SchoolCtx, files: readonly File[]): Promise<StagedFile[]> {
  const staged: StagedFile[] = [];
  try {
    for (const file of files) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const { kind, mime } = await classify(bytes.subarray(0, SNIFF_BYTES), file.type || "application/octet-stream");
      checkCap(kind, bytes.length, `The file ${file.name || "(unnamed)"}`);
      const id = uuidv7(ctx.clock.now());
      const key = objectKey(ctx.tenantId, id);
      const object = await ctx.env.MEDIA.put(key, bytes);
      // A put without conditions always stores (null answers only a failed precondition).
      if (!object) throw new Error(`R2 refused the unconditional put of ${key}`);
      staged.push({
        id,
        kind,
        filename: (file.name || "file").slice(0, 255),
        size: bytes.length,
        declaredMime: (file.type || "application/octet-stream").slice(0, 255),
        mime,
        objectKey: key,
        etag: object.etag,
      });
    }
  } catch (err) {
    await discardStaged(ctx, staged);
    throw err;
  }
  return staged;
}

/** SQL true while the school's quota has room for the staged files together. */
export function stagedFitQuotaSql(ctx: Pick<SchoolCtx, "tenantId" | "tenant">, staged: readonly StagedFile[]): SQL {
  const total = staged.reduce((sum, file) => sum + file.size, 0);
  return sql`${usedBytes(ctx.tenantId)} + ${total} <= ${capBytes(ctx.tenant)}`;
}

/** One INSERT of the staged files as confirmed assets uploaded by the caller, when `when` holds as it runs. */
export function stagedAssetsInsert(ctx: SchoolCtx, staged: readonly StagedFile[], when: SQL): BatchItem {
  const now = ctx.clock.now();
  const rows = staged.map(
    (file) => sql`(${file.id}, ${file.kind}, ${file.filename}, ${file.size}, ${file.declaredMime}, ${file.mime}, ${file.objectKey}, ${file.etag})`,
  );
  return batchable(
    ctx,
    sql`INSERT INTO media_assets (id, tenant_id, kind, filename, size_bytes, declared_size, declared_mime, mime, status, object_key, etag,
        uploaded_by_user_id, confirmed_at, created_at, updated_at)
      SELECT v.column1, ${ctx.tenantId}, v.column2, v.column3, v.column4, v.column4, v.column5, v.column6, 'confirmed', v.column7, v.column8,
        ${ctx.actor.userId}, ${now}, ${now}, ${now}
      FROM (VALUES ${sql.join(rows, sql`, `)}) v
      WHERE ${when}`,
  );
}

/** Removes the staged objects (the write that would have kept them did not happen). */
export async function discardStaged(ctx: SchoolCtx, staged: readonly StagedFile[]): Promise<void> {
  if (staged.length === 0) return;
  try {
    await ctx.env.MEDIA.delete(staged.map((file) => file.objectKey));
  } catch (err) {
    // An object left behind has no asset row: it costs storage but never quota, and no link reaches it.
    log.warn("staged media not removed", { request_id: ctx.requestId, keys: staged.map((file) => file.objectKey), error: String(err) });
  }
}

/** After the assets are stored: page counts and durations are read by the media queue, as after a confirm. */
export async function afterStaged(ctx: SchoolCtx, staged: readonly StagedFile[]): Promise<void> {
  for (const file of staged) await scheduleMetadata(ctx, { id: file.id, kind: file.kind, tenantId: ctx.tenantId });
}
