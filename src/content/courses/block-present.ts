import type { SchoolCtx } from "../../core/http/context";
import { iso, isoOrNull } from "../../core/lib/clock";
import type { blockCompletions, blocks, enrollments } from "../../db/schema";
import { mediaUrl } from "../../platform/media/links";
import { pct } from "../common/progress";
import type { RefBlockType } from "../common/ref-blocks";
import { blockRefRules, isRefBlockType, type EmbeddedRef } from "./references";

export type BlockRow = Pick<
  typeof blocks.$inferSelect,
  "id" | "lessonId" | "moduleId" | "courseId" | "type" | "position" | "payload" | "refId" | "createdAt" | "updatedAt"
>;

type PresentCtx = Pick<SchoolCtx, "tenantId" | "clock" | "config" | "publicOrigin">;

/** Embedded objects of reference blocks, by block type then object id. */
export type Embeds = Partial<Record<RefBlockType, Map<string, EmbeddedRef>>>;

const EMBED_FIELDS: Record<RefBlockType, "quiz" | "assignment" | "exam"> = { quiz_ref: "quiz", assignment_ref: "assignment", exam_ref: "exam" };

/**
 * The objects the blocks embed, one call per reference type present among the open blocks, and
 * none at all while no area has registered an embed (every reference block then embeds null).
 */
export async function loadEmbeds(ctx: SchoolCtx, rows: readonly BlockRow[], locked: ReadonlySet<string>): Promise<Embeds> {
  const embeds: Embeds = {};
  for (const type of Object.keys(EMBED_FIELDS) as RefBlockType[]) {
    const embed = blockRefRules(type).embed;
    if (!embed) continue;
    const ids = [...new Set(rows.filter((row) => row.type === type && row.refId && !locked.has(row.id)).map((row) => row.refId!))];
    if (ids.length > 0) embeds[type] = await embed(ctx, ids);
  }
  return embeds;
}

/**
 * The full block. A block locked for the student keeps its place but shows nothing of its
 * content: no payload, no link, no embedded object.
 */
export async function presentBlock(ctx: PresentCtx, row: BlockRow, view: { locked: boolean; embeds?: Embeds }) {
  const open = !view.locked;
  const assetId = open && typeof row.payload.media_asset_id === "string" ? row.payload.media_asset_id : null;
  const embedded = { quiz: null, assignment: null, exam: null } as Record<"quiz" | "assignment" | "exam", EmbeddedRef | null>;
  if (open && isRefBlockType(row.type) && row.refId) embedded[EMBED_FIELDS[row.type]] = view.embeds?.[row.type]?.get(row.refId) ?? null;
  return {
    id: row.id,
    lesson_id: row.lessonId,
    module_id: row.moduleId,
    course_id: row.courseId,
    type: row.type,
    position: row.position,
    payload: open ? row.payload : null,
    locked: view.locked,
    url: await mediaUrl(ctx, ctx.tenantId, assetId),
    ...embedded,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export type FullBlockView = Awaited<ReturnType<typeof presentBlock>>;

export type CompletionRow = Pick<typeof blockCompletions.$inferSelect, "id" | "studentId" | "blockId" | "enrollmentId" | "source" | "completedAt">;
export type ProgressRow = Pick<typeof enrollments.$inferSelect, "blocksCompleted" | "totalBlocks" | "completedAt">;

export function presentCompletion(row: CompletionRow) {
  return {
    id: row.id,
    student_id: row.studentId,
    block_id: row.blockId,
    enrollment_id: row.enrollmentId,
    source: row.source,
    completed_at: iso(row.completedAt),
  };
}

/** An enrollment's stored progress. */
export function presentProgress(row: ProgressRow) {
  return {
    blocks_completed: row.blocksCompleted,
    total_blocks: row.totalBlocks,
    pct: pct(row.blocksCompleted, row.totalBlocks),
    completed_at: isoOrNull(row.completedAt),
  };
}
