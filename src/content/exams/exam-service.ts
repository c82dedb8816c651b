import { and, sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { batchable, changedRows, runBatch, type BatchItem } from "../../core/db/batch";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { exams } from "../../db/schema";
import { dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { examsErrors } from "./errors";
import { examOr404, getExam, readExams } from "./exam-read";
import { presentExam } from "./present";
import type { CreateExamBody, UpdateExamBody } from "./schemas";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/** POST /t/exams: one statement; a new exam is a draft without sections. */
export async function createExam(ctx: SchoolCtx, input: { body: z.infer<typeof CreateExamBody> }) {
  const { body } = input;
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(exams)
    .values({
      id: uuidv7(now),
      tenantId: ctx.tenantId,
      title: body.title,
      description: body.description ?? "",
      timeLimitSeconds: body.time_limit_seconds,
      passingScore: body.passing_score ?? null,
      maxAttempts: body.max_attempts ?? null,
      retakePolicy: body.retake_policy ?? "best",
      screenshotProtectionEnabled: body.screenshot_protection_enabled ?? false,
      status: "draft",
      createdBy: ctx.actor.userId,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  const exam = row!;
  return presentExam(
    ctx,
    {
      id: exam.id,
      tenant_id: exam.tenantId,
      title: exam.title,
      description: exam.description,
      time_limit_seconds: exam.timeLimitSeconds,
      passing_score: exam.passingScore,
      max_attempts: exam.maxAttempts,
      retake_policy: exam.retakePolicy,
      screenshot_protection_enabled: exam.screenshotProtectionEnabled ? 1 : 0,
      status: exam.status,
      created_at: exam.createdAt,
      updated_at: exam.updatedAt,
    },
    [],
  );
}

/**
 * The structural fields the body sets, as column → new value (a `clear_*` flag sets null). On a
 * published exam each may only repeat its current value.
 */
function structuralChanges(body: UpdateExamBody) {
  return {
    ...(body.time_limit_seconds !== undefined ? { timeLimitSeconds: body.time_limit_seconds } : {}),
    ...(body.clear_passing_score === true ? { passingScore: null } : body.passing_score !== undefined ? { passingScore: body.passing_score } : {}),
    ...(body.clear_max_attempts === true ? { maxAttempts: null } : body.max_attempts !== undefined ? { maxAttempts: body.max_attempts } : {}),
    ...(body.retake_policy !== undefined ? { retakePolicy: body.retake_policy } : {}),
  };
}

/**
 * PATCH /t/exams/:id: the conditional UPDATE and the exam's new state in one batch. The UPDATE
 * holds only on a draft or when every structural field sent equals the stored one (SQL `IS`, so
 * null compares too); the exam read back then tells 404 (no exam) from 409 (published, a
 * structural field would change) without another round trip.
 */
export async function updateExam(ctx: SchoolCtx, input: { id: string; body: UpdateExamBody }) {
  const { id, body } = input;
  const structural = structuralChanges(body);
  const changes = {
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.screenshot_protection_enabled !== undefined ? { screenshotProtectionEnabled: body.screenshot_protection_enabled } : {}),
    ...structural,
  };
  if (Object.keys(changes).length === 0) return getExam(ctx, { id });
  const same = Object.entries(structural).map(([key, value]) => sql`${exams[key as keyof typeof structural]} IS ${value}`);
  const allowed: SQL = same.length === 0 ? sql`1` : sql`(${exams.status} = 'draft' OR (${sql.join(same, sql` AND `)}))`;
  const update = ctx.db
    .update(exams)
    .set({ ...changes, updatedAt: ctx.clock.now() })
    .where(and(liveRowWhere(exams, ctx.tenantId, id), allowed));
  const { exams: read, applied } = await readExams(ctx, [id], [update as unknown as BatchItem]);
  const exam = examOr404(read, id);
  if (changedRows(applied[0]) === 0) throw new ApiError(examsErrors.EXAM_PUBLISHED_IMMUTABLE);
  return exam;
}

const noAttemptInProgress = (tenantId: string, id: string) =>
  sql`NOT EXISTS (SELECT 1 FROM exam_attempts a WHERE ${inSchool("a", tenantId)} AND a.exam_id = ${id} AND a.status = 'in_progress')`;

/**
 * DELETE /t/exams/:id: soft, with its sections (same timestamp), in one batch, refused while an
 * attempt is in progress: the refusal is the UPDATE's own condition, so an attempt started in
 * between still wins. Finished attempts stay for their students' records.
 */
export async function deleteExam(ctx: SchoolCtx, input: { id: string }): Promise<{ deleted: true }> {
  const { id } = input;
  const t = ctx.tenantId;
  const now = ctx.clock.now();
  const [deleted] = await runBatch(ctx, [
    batchable(ctx, sql`UPDATE exams SET deleted_at = ${now}, updated_at = ${now}
      WHERE id = ${id} AND ${liveInSchool(t)} AND ${noAttemptInProgress(t, id)}`),
    batchable(ctx, sql`UPDATE exam_sections SET deleted_at = ${now}, updated_at = ${now}
      WHERE ${inSchool(t)} AND exam_id = ${id} AND deleted_at IS NULL
        AND EXISTS (SELECT 1 FROM exams e WHERE e.id = ${id} AND ${inSchool("e", t)} AND e.deleted_at = ${now})`),
  ]);
  if (changedRows(deleted) === 1) return { deleted: true };
  const [row] = await ctx.db.all<{ id: string }>(sql`SELECT id FROM exams WHERE id = ${id} AND ${liveInSchool(t)}`);
  throw new ApiError(row ? examsErrors.EXAM_HAS_IN_PROGRESS_ATTEMPTS : examsErrors.EXAM_NOT_FOUND);
}

const hasLiveSection = (tenantId: string, id: string) =>
  sql`EXISTS (SELECT 1 FROM exam_sections s WHERE ${inSchool("s", tenantId)} AND s.exam_id = ${id} AND s.deleted_at IS NULL)`;

/**
 * `exam.published` (#41) to the school's students, on the exam's first publication only: the
 * statement runs after the UPDATE and holds only when that UPDATE set `published_at` now.
 */
function publishedPush(ctx: SchoolCtx, id: string, now: number): Promise<BatchItem> {
  const t = ctx.tenantId;
  const exam = (column: SQL) => sql`(SELECT ${column} FROM exams pe WHERE pe.id = ${id} AND ${inSchool("pe", t)})`;
  return enqueue(
    ctx,
    "exam.published",
    { token: "school_students" },
    // Minutes rounded up, so a limit under a minute never reads as 0.
    { exam_title: exam(sql`pe.title`), time_limit_minutes: exam(sql`(pe.time_limit_seconds + 59) / 60`) },
    { id },
    `exam.published:${id}`,
    { when: sql`EXISTS (SELECT 1 FROM exams pe WHERE pe.id = ${id} AND ${liveInSchool("pe", t)} AND pe.status = 'published' AND pe.published_at = ${now})` },
  );
}

/**
 * POST /t/exams/:id/publish: one conditional UPDATE (a live draft with a live section) and the
 * push in one batch; when it changes nothing, one read tells which rule refused (404, 409
 * already published, 400 no section).
 */
export async function publishExam(ctx: SchoolCtx, input: { id: string }): Promise<{ published: true }> {
  const { id } = input;
  const t = ctx.tenantId;
  const now = ctx.clock.now();
  const [published] = await runBatch(ctx, [
    batchable(ctx, sql`UPDATE exams SET status = 'published', published_at = COALESCE(published_at, ${now}), updated_at = ${now}
      WHERE id = ${id} AND ${liveInSchool(t)} AND status = 'draft' AND ${hasLiveSection(t, id)}`),
    await publishedPush(ctx, id, now),
  ]);
  if (changedRows(published) === 1) {
    await dispatchQueued(ctx);
    return { published: true };
  }
  const [row] = await ctx.db.all<{ status: string }>(sql`SELECT status FROM exams WHERE id = ${id} AND ${liveInSchool(t)}`);
  if (!row) throw new ApiError(examsErrors.EXAM_NOT_FOUND);
  throw new ApiError(row.status === "published" ? examsErrors.EXAM_ALREADY_PUBLISHED : examsErrors.EXAM_SECTION_REQUIRED);
}

/**
 * POST /t/exams/:id/unpublish: back to draft, idempotent (a draft answers the same); one
 * statement. Attempts in progress run on to their end; finished ones stay.
 */
export async function unpublishExam(ctx: SchoolCtx, input: { id: string }): Promise<{ unpublished: true }> {
  const { id } = input;
  const updated = await ctx.db
    .update(exams)
    .set({ status: "draft", updatedAt: sql`CASE WHEN ${exams.status} <> 'draft' THEN ${ctx.clock.now()} ELSE ${exams.updatedAt} END` })
    .where(liveRowWhere(exams, ctx.tenantId, id))
    .returning({ id: exams.id });
  if (updated.length === 0) throw new ApiError(examsErrors.EXAM_NOT_FOUND);
  return { unpublished: true };
}
