import { sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { batchable, changedRows, insertWhere, rowsOf, runBatch } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { examSections } from "../../db/schema";
import { quizzesErrors } from "../quizzes/errors";
import { appendPosition, reorderSiblings } from "../common/ordering";
import { examsErrors } from "./errors";
import { presentSection } from "./present";
import { EXAM_LIMITS, type CreateSectionBody, type UpdateSectionBody } from "./schemas";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Sections of an exam. Adding, removing, or changing a section's quiz or weight changes the
 * exam's structure, which a published exam keeps (409 `exam_published_immutable`); titles and
 * order may change at any time. Each write is one batch whose conditions are the rules, with the
 * section read back; only a refused write costs a second read, to tell which rule refused.
 */

/** A weight as the contract takes it: a whole number from 1 to 1000, nothing else. */
function checkWeight(value: unknown): number {
  const { min, max } = EXAM_LIMITS.weight;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) throw new ApiError(examsErrors.INVALID_WEIGHT);
  return value;
}

const liveExam = (tenantId: string, examId: string, extra: SQL = sql``) =>
  sql`EXISTS (SELECT 1 FROM exams e WHERE e.id = ${examId} AND ${liveInSchool("e", tenantId)} ${extra})`;

const liveQuiz = (tenantId: string, quizId: SQL | string) =>
  sql`EXISTS (SELECT 1 FROM quizzes q WHERE q.id = ${quizId} AND ${liveInSchool("q", tenantId)})`;

interface SectionState {
  exam_status: string | null;
  live_sections: number;
  quiz_ok: number;
  id: string | null;
  quiz_id: string;
  title: string;
  position: number;
  weight: number;
}

/**
 * The exam's status (null: no live exam of the school), its live section count, whether `quizId`
 * is a live quiz of the school, and the section (null id: not a live section of that exam).
 */
function stateStatement(ctx: SchoolCtx, examId: string, sectionId: string | null, quizId: string | null) {
  const t = ctx.tenantId;
  return batchable(
    ctx,
    sql`SELECT (SELECT e.status FROM exams e WHERE e.id = ${examId} AND ${liveInSchool("e", t)}) AS exam_status,
        (SELECT count(*) FROM exam_sections c WHERE ${inSchool("c", t)} AND c.exam_id = ${examId} AND c.deleted_at IS NULL) AS live_sections,
        ${quizId === null ? sql`1` : liveQuiz(t, quizId)} AS quiz_ok,
        s.id, s.quiz_id, s.title, s.position, s.weight
      FROM (SELECT 1) one
        LEFT JOIN exam_sections s ON s.id = ${sectionId} AND ${inSchool("s", t)} AND s.exam_id = ${examId} AND s.deleted_at IS NULL`,
  );
}

async function readState(ctx: SchoolCtx, examId: string, sectionId: string | null, quizId: string | null): Promise<SectionState> {
  const [result] = await runBatch(ctx, [stateStatement(ctx, examId, sectionId, quizId)]);
  return rowsOf<SectionState>(result)[0]!;
}

/** The refusal a write's state explains, in the order the rules are checked. */
function refusal(state: SectionState, input: { section: boolean; structural: boolean }): ApiError {
  if (state.exam_status === null) return new ApiError(examsErrors.EXAM_NOT_FOUND);
  if (input.section && state.id === null) return new ApiError(examsErrors.EXAM_SECTION_NOT_FOUND);
  if (input.structural && state.exam_status === "published") return new ApiError(examsErrors.EXAM_PUBLISHED_IMMUTABLE);
  if (!state.quiz_ok) return new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
  return new ApiError(coreErrors.INVALID_REQUEST_BODY, { message: `An exam holds at most ${EXAM_LIMITS.sections} sections.` });
}

/** POST /t/exams/:id/sections: appended after the live sections, on a live draft exam, naming a live quiz of the school. */
export async function createSection(ctx: SchoolCtx, input: { examId: string; body: z.infer<typeof CreateSectionBody> }) {
  const { examId, body } = input;
  const weight = checkWeight(body.weight);
  const t = ctx.tenantId;
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const list = { table: examSections, parent: { column: examSections.examId, id: examId } };
  const [inserted, state] = await runBatch(ctx, [
    insertWhere(
      ctx,
      examSections,
      { id, tenantId: t, examId, quizId: body.quiz_id, title: body.title, position: appendPosition(t, list), weight, createdAt: now, updatedAt: now },
      sql`${liveExam(t, examId, sql`AND e.status = 'draft'`)} AND ${liveQuiz(t, body.quiz_id)}
        AND (SELECT count(*) FROM exam_sections c WHERE ${inSchool("c", t)} AND c.exam_id = ${examId} AND c.deleted_at IS NULL) < ${EXAM_LIMITS.sections}`,
    ),
    stateStatement(ctx, examId, id, body.quiz_id),
  ]);
  const row = rowsOf<SectionState>(state)[0]!;
  if (changedRows(inserted) === 0) throw refusal(row, { section: false, structural: true });
  return presentSection({ ...row, id });
}

/**
 * PATCH /t/exams/:id/sections/:section_id: a new quiz must be a live quiz of the school; on a
 * published exam the quiz and weight may only repeat their current values.
 */
export async function updateSection(ctx: SchoolCtx, input: { examId: string; sectionId: string; body: z.infer<typeof UpdateSectionBody> }) {
  const { examId, sectionId, body } = input;
  const weight = body.weight === undefined ? undefined : checkWeight(body.weight);
  const t = ctx.tenantId;
  const sets = [
    body.quiz_id !== undefined ? sql`quiz_id = ${body.quiz_id}` : undefined,
    body.title !== undefined ? sql`title = ${body.title}` : undefined,
    weight !== undefined ? sql`weight = ${weight}` : undefined,
  ].filter((set): set is SQL => set !== undefined);
  const quizId = body.quiz_id ?? null;
  if (sets.length === 0) {
    const state = await readState(ctx, examId, sectionId, null);
    if (state.exam_status === null || state.id === null) throw refusal(state, { section: true, structural: false });
    return presentSection({ ...state, id: state.id });
  }
  const same = [quizId !== null ? sql`quiz_id = ${quizId}` : undefined, weight !== undefined ? sql`weight = ${weight}` : undefined].filter(
    (condition): condition is SQL => condition !== undefined,
  );
  const structureKept = same.length === 0 ? sql`1` : sql`(${sql.join(same, sql` AND `)})`;
  const now = ctx.clock.now();
  const [updated, state] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`UPDATE exam_sections SET ${sql.join(sets, sql`, `)}, updated_at = ${now}
        WHERE id = ${sectionId} AND ${inSchool(t)} AND exam_id = ${examId} AND deleted_at IS NULL
          AND (${liveExam(t, examId, sql`AND e.status = 'draft'`)} OR (${liveExam(t, examId)} AND ${structureKept}))
          ${quizId !== null ? sql`AND ${liveQuiz(t, quizId)}` : sql``}`,
    ),
    stateStatement(ctx, examId, sectionId, quizId),
  ]);
  const row = rowsOf<SectionState>(state)[0]!;
  if (changedRows(updated) === 0) throw refusal(row, { section: true, structural: true });
  return presentSection({ ...row, id: sectionId });
}

/** DELETE /t/exams/:id/sections/:section_id: soft; only on a draft exam. */
export async function deleteSection(ctx: SchoolCtx, input: { examId: string; sectionId: string }): Promise<{ deleted: true }> {
  const { examId, sectionId } = input;
  const t = ctx.tenantId;
  const now = ctx.clock.now();
  const [deleted] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`UPDATE exam_sections SET deleted_at = ${now}, updated_at = ${now}
        WHERE id = ${sectionId} AND ${inSchool(t)} AND exam_id = ${examId} AND deleted_at IS NULL AND ${liveExam(t, examId, sql`AND e.status = 'draft'`)}`,
    ),
  ]);
  if (changedRows(deleted) === 1) return { deleted: true };
  throw refusal(await readState(ctx, examId, sectionId, null), { section: true, structural: true });
}

/** POST /t/exams/:id/sections/reorder: every live section exactly once; allowed on a published exam too. */
export async function reorderSections(ctx: SchoolCtx, input: { examId: string; ids: readonly string[] }) {
  const { examId } = input;
  const [exam] = await ctx.db.all<{ id: string }>(sql`SELECT id FROM exams WHERE id = ${examId} AND ${liveInSchool(ctx.tenantId)}`);
  if (!exam) throw new ApiError(examsErrors.EXAM_NOT_FOUND);
  return reorderSiblings(ctx, { table: examSections, parent: { column: examSections.examId, id: examId } }, input.ids);
}
