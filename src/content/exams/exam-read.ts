import { profileColumnsSql } from "../accommodations/effective";
import { sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { EXAM_STATUSES } from "../../db/schema";
import { isStaff } from "../common/access";
import { examsErrors } from "./errors";
import { presentExam, presentExamListItem, type ExamListRow, type ExamRow, type ExamView, type SectionRow, type StudentExamRow } from "./present";
import { resultJsonSql } from "./result";
import type { ListExamsQuery } from "./schemas";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The exam reads as raw statements over the alias `e`, so a write puts them in its own batch (the
 * answer of PATCH) and a read is one batch: the exams and their sections, and for a student their
 * own attempts' figures as subqueries of the exam statement, whatever the number of exams read.
 */

type Caller = Pick<SchoolCtx, "tenantId" | "actor">;

/** The exam (alias `e`) is one the caller may read: a live exam of the school; for a student, a published one. */
export function examVisibleSql(ctx: Caller): SQL {
  const live = sql`${liveInSchool("e", ctx.tenantId)}`;
  return isStaff(ctx.actor) ? live : sql`${live} AND e.status = 'published'`;
}

const EXAM_COLUMNS = sql`e.id, e.tenant_id, e.title, e.description, e.time_limit_seconds, e.passing_score, e.max_attempts, e.retake_policy,
  e.screenshot_protection_enabled, e.status, e.created_at, e.updated_at`;

/** A student's own attempts of the exam: finished count, the attempt in progress and the result by retake policy (JSON texts). */
function studentColumnsSql(ctx: Caller): SQL {
  const t = ctx.tenantId;
  const me = ctx.actor.userId;
  return sql`,
    (SELECT count(*) FROM exam_attempts ca WHERE ${inSchool("ca", t)} AND ca.exam_id = e.id AND ca.user_id = ${me} AND ca.status = 'submitted') AS attempts_count,
    (SELECT json_object('attempt_id', pa.id, 'started_at', pa.started_at, 'deadline_at', pa.deadline_at) FROM exam_attempts pa
      WHERE ${inSchool("pa", t)} AND pa.exam_id = e.id AND pa.user_id = ${me} AND pa.status = 'in_progress'
      ORDER BY pa.started_at DESC, pa.id DESC LIMIT 1) AS in_progress,
    ${resultJsonSql(t, sql`e`, me)} AS result, ${profileColumnsSql(t, me)}`;
}

const idsJson = (ids: readonly string[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** The exams (ids as values) the caller may read, in the caller's view; ids not readable are left out. */
export function examDetailStatement(ctx: SchoolCtx, ids: readonly string[]): BatchItem {
  const student = isStaff(ctx.actor) ? sql`` : studentColumnsSql(ctx);
  return batchable(ctx, sql`SELECT ${EXAM_COLUMNS}${student} FROM exams e WHERE e.id IN ${idsJson(ids)} AND ${examVisibleSql(ctx)}`);
}

/** The live sections of those exams in position order, each with its quiz's live question count. */
export function sectionsStatement(ctx: SchoolCtx, ids: readonly string[]): BatchItem {
  const t = ctx.tenantId;
  return batchable(
    ctx,
    sql`SELECT s.id, s.exam_id, s.quiz_id, s.title, s.position, s.weight,
        (SELECT count(*) FROM quiz_questions qq WHERE ${inSchool("qq", t)} AND qq.quiz_id = s.quiz_id AND qq.deleted_at IS NULL) AS question_count
      FROM exam_sections s
      WHERE ${liveInSchool("s", t)} AND s.exam_id IN (SELECT e.id FROM exams e WHERE e.id IN ${idsJson(ids)} AND ${examVisibleSql(ctx)})
      ORDER BY s.exam_id, s.position, s.id`,
  );
}

/**
 * The exams (as the caller may read them) in the caller's view, after `before` (a write whose
 * answer they are), all in one batch: one round trip. Exams the caller may not read are absent.
 * `applied` holds the results of `before`.
 */
export async function readExams(ctx: SchoolCtx, ids: readonly string[], before: readonly BatchItem[] = []): Promise<{ exams: Map<string, ExamView>; applied: unknown[] }> {
  const results = await runBatch(ctx, [...before, examDetailStatement(ctx, ids), sectionsStatement(ctx, ids)]);
  const [examResult, sectionResult] = results.slice(before.length);
  const sections = new Map<string, SectionRow[]>();
  for (const row of rowsOf<SectionRow>(sectionResult)) {
    const list = sections.get(row.exam_id) ?? [];
    list.push(row);
    sections.set(row.exam_id, list);
  }
  const exams = new Map<string, ExamView>();
  for (const row of rowsOf<ExamRow | StudentExamRow>(examResult)) exams.set(row.id, presentExam(ctx, row, sections.get(row.id) ?? []));
  return { exams, applied: results.slice(0, before.length) };
}

export function examOr404(exams: Map<string, ExamView>, id: string): ExamView {
  const exam = exams.get(id);
  if (!exam) throw new ApiError(examsErrors.EXAM_NOT_FOUND);
  return exam;
}

/**
 * GET /t/exams/:id: one batch. Staff read any live exam of the school; a student a published one
 * (a draft is `exam_not_found`), with their result and attempts.
 */
export async function getExam(ctx: SchoolCtx, input: { id: string }): Promise<ExamView> {
  return examOr404((await readExams(ctx, [input.id])).exams, input.id);
}

/** The exams `exam_ref` blocks embed, in the caller's view (students: published ones only). */
export async function examsForEmbed(ctx: SchoolCtx, ids: readonly string[]): Promise<Map<string, ExamView>> {
  return (await readExams(ctx, ids)).exams;
}

/**
 * GET /t/exams: one statement, newest first, each row with its live section count. Staff may
 * filter by status (anything but `published` or `draft` is 400 `invalid_status`); a student always
 * gets the published exams and their `status` is ignored.
 */
export async function listExams(ctx: SchoolCtx, input: { query: z.infer<typeof ListExamsQuery> }) {
  const status = isStaff(ctx.actor) && input.query.status ? input.query.status : undefined;
  if (status !== undefined && !(EXAM_STATUSES as readonly string[]).includes(status)) throw new ApiError(examsErrors.INVALID_STATUS);
  const t = ctx.tenantId;
  const rows = await ctx.db.all<ExamListRow>(
    sql`SELECT ${EXAM_COLUMNS},
        (SELECT count(*) FROM exam_sections s WHERE ${inSchool("s", t)} AND s.exam_id = e.id AND s.deleted_at IS NULL) AS section_count
      FROM exams e WHERE ${examVisibleSql(ctx)} ${status ? sql`AND e.status = ${status}` : sql``}
      ORDER BY e.created_at DESC, e.id DESC`,
  );
  return rows.map(presentExamListItem);
}
