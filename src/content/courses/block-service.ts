import type { z } from "@hono/zod-openapi";
import { sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, insertWhere, runBatch, type BatchItem, rowsOf } from "../../core/db/batch";
import { liveRow } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { blocks, lessons, type BlockType } from "../../db/schema";
import { assetRef } from "../../platform/media/asset-ref";
import { reorderSiblings } from "../common/ordering";
import { recomputeCourseProgress } from "../common/progress";
import { presentBlock, type BlockRow } from "./block-present";
import type { CreateBlockBody, ReorderBlocksBody, UpdateBlockBody } from "./block-schemas";
import { blockType, validPayload, type ValidPayload } from "./block-types";
import { coursesErrors } from "./errors";
import { blockRow, type RawBlock } from "./lesson-content";
import { blockRefExistsSql, isRefBlockType } from "./references";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Authoring of blocks (staff with manage_courses). Each write is one batch of conditional
 * statements: the block's lesson is live and a reference names an object of the school, checked
 * by the statements themselves, then the course's progress recount and the block read back. A
 * block added or removed changes every enrollment's `total_blocks`, so those writes recount.
 */

/** The payload's media asset is a confirmed asset of the school of the kind the type takes. */
async function checkMedia(ctx: SchoolCtx, valid: ValidPayload): Promise<void> {
  if (!valid.media) return;
  await assetRef(valid.media.kind).check(ctx, {
    tenantId: ctx.tenantId,
    field: "payload.media_asset_id",
    value: valid.media.id,
    invalid: coursesErrors.INVALID_BLOCK_PAYLOAD,
  });
}

/** SQL true when the payload's reference (if the type has one) names a live object of the school. */
function refHolds(ctx: SchoolCtx, type: BlockType, refId: string | null): SQL {
  return isRefBlockType(type) ? blockRefExistsSql(type, ctx.tenantId, sql`${refId}`) : sql`1`;
}

function blockById(ctx: SchoolCtx, id: string): BatchItem {
  return batchable(ctx, sql`SELECT * FROM blocks WHERE id = ${id} AND tenant_id = ${ctx.tenantId} AND deleted_at IS NULL`);
}

function rowOf(result: unknown): BlockRow | undefined {
  const raw = rowsOf<RawBlock>(result)[0];
  return raw ? blockRow(raw) : undefined;
}

const staffView = { locked: false };

/** POST /lessons/:id/blocks: 201 full block, appended or inserted at `position`. */
export async function createBlock(ctx: SchoolCtx, input: { lessonId: string; body: z.infer<typeof CreateBlockBody> }) {
  const { tenantId } = ctx;
  const type = blockType(input.body.type);
  const valid = validPayload(type, input.body.payload);
  await checkMedia(ctx, valid);

  const id = uuidv7();
  const now = ctx.clock.now();
  const lessonId = input.lessonId;
  const lessonLive = sql`EXISTS (SELECT 1 FROM lessons WHERE id = ${lessonId} AND ${liveInSchool(tenantId)})`;
  const writable = sql`${lessonLive} AND ${refHolds(ctx, type, valid.refId)}`;
  const siblings = sql`${inSchool(tenantId)} AND lesson_id = ${lessonId} AND deleted_at IS NULL`;
  const count = sql`(SELECT count(*) FROM blocks WHERE ${siblings})`;
  const requested = input.body.position;

  const statements: BatchItem[] = [];
  // An insertion at an index renumbers the lesson 0..n, leaving that index free: positions may
  // have gaps after deletions, and the index counts blocks, not position values.
  if (requested !== undefined) {
    statements.push(
      batchable(
        ctx,
        sql`UPDATE blocks SET position = ordered.idx + (ordered.idx >= ${requested}), updated_at = ${now}
          FROM (SELECT id, row_number() OVER (ORDER BY position, id) - 1 AS idx FROM blocks WHERE ${siblings}) AS ordered
          WHERE blocks.id = ordered.id AND blocks.position <> ordered.idx + (ordered.idx >= ${requested}) AND ${writable}`,
      ),
    );
  }
  const position = requested === undefined ? sql`(SELECT COALESCE(MAX(position), -1) + 1 FROM blocks WHERE ${siblings})` : sql`MIN(${requested}, ${count})`;
  statements.push(
    insertWhere(
      ctx,
      blocks,
      {
        id,
        tenantId,
        courseId: sql`(SELECT course_id FROM lessons WHERE id = ${lessonId} AND ${inSchool(tenantId)})`,
        moduleId: sql`(SELECT module_id FROM lessons WHERE id = ${lessonId} AND ${inSchool(tenantId)})`,
        lessonId,
        type,
        payload: valid.payload,
        refId: valid.refId,
        position,
        createdAt: now,
        updatedAt: now,
      },
      writable,
    ),
    recomputeCourseProgress(ctx, tenantId, sql`(SELECT course_id FROM blocks WHERE id = ${id} AND ${inSchool(tenantId)})`),
    blockById(ctx, id),
    batchable(ctx, sql`SELECT ${lessonLive} AS live`),
  );
  const results = await runBatch(ctx, statements);
  const row = rowOf(results[results.length - 2]);
  if (!row) {
    const live = rowsOf<{ live: number }>(results[results.length - 1])[0]?.live === 1;
    throw new ApiError(live ? coursesErrors.BLOCK_REF_NOT_FOUND : coursesErrors.LESSON_NOT_FOUND);
  }
  return presentBlock(ctx, row, staffView);
}

/** PATCH /blocks/:id: a new payload for the block's own type. */
export async function updateBlock(ctx: SchoolCtx, input: { id: string; body: z.infer<typeof UpdateBlockBody> }) {
  const current = await liveRow(ctx, blocks, input.id, coursesErrors.BLOCK_NOT_FOUND);
  if (input.body.type !== undefined && input.body.type !== current.type) {
    throw new ApiError(coursesErrors.BLOCK_TYPE_IMMUTABLE, { message: `This block is a ${current.type} block; its type cannot change. Create a new block instead.` });
  }
  if (input.body.payload === undefined) {
    throw new ApiError(coreErrors.INVALID_REQUEST_BODY, { message: "payload: required", details: [{ path: "payload", message: "required" }] });
  }
  const valid = validPayload(current.type, input.body.payload);
  await checkMedia(ctx, valid);

  const now = ctx.clock.now();
  const [updated, read] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`UPDATE blocks SET payload = ${JSON.stringify(valid.payload)}, ref_id = ${valid.refId}, updated_at = ${now}
        WHERE id = ${input.id} AND ${liveInSchool(ctx.tenantId)} AND ${refHolds(ctx, current.type, valid.refId)}`,
    ),
    blockById(ctx, input.id),
  ]);
  const row = rowOf(read);
  if (!row) throw new ApiError(coursesErrors.BLOCK_NOT_FOUND);
  if (changedRows(updated) === 0) throw new ApiError(coursesErrors.BLOCK_REF_NOT_FOUND);
  return presentBlock(ctx, row, staffView);
}

/** DELETE /blocks/:id: soft; the course's enrollments are recounted in the same batch. */
export async function deleteBlock(ctx: SchoolCtx, input: { id: string }): Promise<void> {
  const now = ctx.clock.now();
  const [deleted] = await runBatch(ctx, [
    batchable(ctx, sql`UPDATE blocks SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${input.id} AND ${liveInSchool(ctx.tenantId)}`),
    recomputeCourseProgress(ctx, ctx.tenantId, sql`(SELECT course_id FROM blocks WHERE id = ${input.id} AND ${inSchool(ctx.tenantId)} AND deleted_at = ${now})`),
  ]);
  if (changedRows(deleted) === 0) throw new ApiError(coursesErrors.BLOCK_NOT_FOUND);
}

/** PATCH /lessons/:id/reorder-blocks. */
export async function reorderBlocks(ctx: SchoolCtx, input: { lessonId: string; body: z.infer<typeof ReorderBlocksBody> }) {
  await liveRow(ctx, lessons, input.lessonId, coursesErrors.LESSON_NOT_FOUND);
  return reorderSiblings(ctx, { table: blocks, parent: { column: blocks.lessonId, id: input.lessonId } }, input.body.block_ids);
}
