import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import type { blocks, courseModules, lessons } from "../../db/schema";
import { mediaUrl } from "../../platform/media/links";
import { isStaff } from "../common/access";
import type { WindowStatus } from "../common/windows";
import { quizQuestionCountSql } from "./references";

export type ModuleRow = Pick<
  typeof courseModules.$inferSelect,
  "id" | "tenantId" | "courseId" | "title" | "description" | "position" | "coverImageId" | "createdAt" | "updatedAt"
>;
export type LessonRow = Pick<
  typeof lessons.$inferSelect,
  "id" | "moduleId" | "courseId" | "title" | "position" | "screenshotProtectionEnabled" | "coverImageId" | "createdAt" | "updatedAt"
>;
export type LightBlockRow = Pick<typeof blocks.$inferSelect, "id" | "type" | "position" | "payload">;

export type { WindowStatus };

const OPEN: WindowStatus = { locked: false, locked_reason: null, available_from: null, available_until: null };

/**
 * A student's window status on a module or lesson (worked out by the reader from the student's
 * effective windows, `nodeStatus`); open when the node has none. Staff get no such fields.
 */
export function windowStatus(ctx: Pick<SchoolCtx, "actor">, status: WindowStatus = OPEN): WindowStatus | Record<string, never> {
  if (isStaff(ctx.actor)) return {};
  return status;
}

/** The lesson object without `blocks`; `passed` is the caller's (always false for staff). */
export async function presentLessonFields(ctx: Pick<SchoolCtx, "actor" | "tenantId" | "clock" | "config" | "publicOrigin">, row: LessonRow, passed: boolean, status?: WindowStatus) {
  return {
    id: row.id,
    module_id: row.moduleId,
    course_id: row.courseId,
    title: row.title,
    position: row.position,
    screenshot_protection_enabled: row.screenshotProtectionEnabled,
    cover_image_id: row.coverImageId,
    cover_image_url: await mediaUrl(ctx, ctx.tenantId, row.coverImageId),
    passed: passed && !isStaff(ctx.actor),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    ...windowStatus(ctx, status),
  };
}

export type LessonFieldsView = Awaited<ReturnType<typeof presentLessonFields>>;

/** The `question_count` column of a light-block read over a `blocks` alias (NULL but for `quiz_ref`). */
export function questionCountSql(tenantId: string, block: SQL): SQL<number | null> {
  return sql<number | null>`CASE WHEN ${block}.type = 'quiz_ref' THEN ${quizQuestionCountSql(tenantId, sql`${block}.ref_id`)} END`;
}

/**
 * A light block: a block the caller may not open (locked by the course order, or a course the
 * student is not enrolled in) keeps its place in the list but not its payload.
 */
export function presentLightBlock(row: LightBlockRow, view: { locked: boolean; questionCount?: number | null }) {
  return {
    id: row.id,
    type: row.type,
    position: row.position,
    payload: view.locked ? null : row.payload,
    locked: view.locked,
    ...(row.type === "quiz_ref" ? { question_count: view.questionCount ?? null } : {}),
  };
}

export type LightBlockView = ReturnType<typeof presentLightBlock>;
export type LessonView = LessonFieldsView & { blocks: LightBlockView[] };

export async function presentModule(ctx: Pick<SchoolCtx, "actor" | "tenantId" | "clock" | "config" | "publicOrigin">, row: ModuleRow, moduleLessons: LessonView[], status?: WindowStatus) {
  return {
    id: row.id,
    course_id: row.courseId,
    tenant_id: row.tenantId,
    title: row.title,
    description: row.description,
    position: row.position,
    cover_image_id: row.coverImageId,
    cover_image_url: await mediaUrl(ctx, ctx.tenantId, row.coverImageId),
    lessons_count: moduleLessons.length,
    lessons: moduleLessons,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    ...windowStatus(ctx, status),
  };
}

/** `{cover_image_id, cover_image_url}` of a module or lesson. */
export async function presentCover(ctx: Pick<SchoolCtx, "tenantId" | "clock" | "config" | "publicOrigin">, coverImageId: string | null) {
  return { cover_image_id: coverImageId, cover_image_url: await mediaUrl(ctx, ctx.tenantId, coverImageId) };
}
