import { profileColumnsSql } from "../accommodations/effective";
import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import type { RETAKE_POLICIES, ScoringMode } from "../../db/schema";
import { isStaff } from "../common/access";
import { quizOpenLessonsSql, studentQuizAccessSql } from "./access";
import { quizExamLinks } from "./exam-links";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The quiz reads as raw statements over the alias `q`, so a verb puts them in the batch of its
 * write (the answer of PATCH) or next to the question reads (one round trip for a detail). Every
 * derived field (`published_via_*`, `course_refs`, `exam_refs`) is a subquery of the one
 * statement, whatever the number of quizzes read.
 */

type Caller = Pick<SchoolCtx, "tenantId" | "actor" | "clock">;

/** The quiz's live `quiz_ref` blocks in live lessons, modules and courses: aliases `rb`, `rl`, `rm`, `rc`. */
function liveRefsSql(tenantId: string, quizId: SQL): SQL {
  return sql`blocks rb
      JOIN lessons rl ON rl.id = rb.lesson_id AND ${liveInSchool("rl", tenantId)}
      JOIN course_modules rm ON rm.id = rb.module_id AND ${liveInSchool("rm", tenantId)}
      JOIN courses rc ON rc.id = rb.course_id AND ${liveInSchool("rc", tenantId)}
    WHERE ${inSchool("rb", tenantId)} AND rb.ref_id = ${quizId} AND rb.type = 'quiz_ref' AND rb.deleted_at IS NULL`;
}

/** SQL true when a live lesson of a published course references the quiz. */
export function publishedViaCourseSql(tenantId: string, quizId: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM ${liveRefsSql(tenantId, quizId)} AND rc.status = 'published')`;
}

/** SQL true when the quiz is published (through a course or an exam): the list's `status`. */
export function quizPublishedSql(tenantId: string, quizId: SQL): SQL {
  return sql`(${publishedViaCourseSql(tenantId, quizId)} OR ${quizExamLinks().published(tenantId, quizId)})`;
}

/**
 * The quiz (alias `q`) is one the caller may read: a live quiz of the school, and for a student
 * one they reach through an open course path (`studentQuizAccessSql`). An exam section's quiz is
 * read by its exam attempt (`liveQuizDetailStatement`), not here.
 */
export function quizVisibleSql(ctx: Caller): SQL {
  const live = sql`${liveInSchool("q", ctx.tenantId)}`;
  if (isStaff(ctx.actor)) return live;
  return sql`${live} AND ${studentQuizAccessSql(ctx.tenantId, sql`q.id`, ctx.actor.userId, ctx.clock.now())}`;
}

/**
 * `course_refs` as JSON text: one item per live reference block, by course title, module and
 * lesson order. A student sees only the lessons that give them the quiz.
 */
function courseRefsJsonSql(ctx: Caller): SQL {
  const t = ctx.tenantId;
  const own = isStaff(ctx.actor) ? sql`` : sql`AND rl.id IN (SELECT al.id FROM (${quizOpenLessonsSql(t, sql`q.id`, ctx.actor.userId, ctx.clock.now())}) al)`;
  return sql`(SELECT json_group_array(json_object('course_id', x.course_id, 'course_title', x.course_title, 'course_status', x.course_status,
        'module_id', x.module_id, 'module_title', x.module_title, 'lesson_id', x.lesson_id, 'lesson_title', x.lesson_title))
      FROM (SELECT rc.id AS course_id, rc.title AS course_title, rc.status AS course_status, rm.id AS module_id, rm.title AS module_title,
              rl.id AS lesson_id, rl.title AS lesson_title
            FROM ${liveRefsSql(t, sql`q.id`)} ${own}
            ORDER BY rc.title, rc.id, rm.position, rm.id, rl.position, rl.id, rb.position, rb.id) x)`;
}

/** What every quiz read carries: the row's columns and the publication flags. */
function quizColumnsSql(ctx: Caller): SQL {
  const t = ctx.tenantId;
  return sql`q.id, q.tenant_id, q.title, q.description, q.max_attempts, q.time_limit_seconds, q.passing_score, q.retake_policy,
    q.default_scoring_mode, q.screenshot_protection_enabled, q.questions_per_attempt, q.shuffle_questions, q.shuffle_answers, q.created_at, q.updated_at,
    ${publishedViaCourseSql(t, sql`q.id`)} AS published_via_course,
    ${quizExamLinks().published(t, sql`q.id`)} AS published_via_exam`;
}

export interface QuizRow {
  id: string;
  tenant_id: string;
  title: string;
  description: string;
  max_attempts: number | null;
  time_limit_seconds: number | null;
  passing_score: number | null;
  retake_policy: (typeof RETAKE_POLICIES)[number];
  default_scoring_mode: ScoringMode;
  screenshot_protection_enabled: number;
  questions_per_attempt: number | null;
  shuffle_questions: number;
  shuffle_answers: number;
  created_at: number;
  updated_at: number;
  published_via_course: number;
  published_via_exam: number;
}

export interface QuizDetailRow extends QuizRow {
  course_refs: string;
  exam_refs: string;
  /** Present (null without a profile) in a student's read: their accommodation. */
  acc_multiplier?: number | null;
}

/** The quizzes (ids as values) the caller may read, with their references; ids not readable are left out. */
export function quizDetailStatement(ctx: SchoolCtx, ids: readonly string[]): BatchItem {
  return batchable(
    ctx,
    sql`SELECT ${quizColumnsSql(ctx)}, ${courseRefsJsonSql(ctx)} AS course_refs, (${quizExamLinks().refsJson(ctx, sql`q.id`)}) AS exam_refs
        ${isStaff(ctx.actor) ? sql`` : sql`, ${profileColumnsSql(ctx.tenantId, ctx.actor.userId)}`}
      FROM quizzes q WHERE q.id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) AND ${quizVisibleSql(ctx)}`,
  );
}

/**
 * One live quiz of the school whatever the caller reaches: an exam section's quiz, read by the exam
 * attempt that holds it (the attempt, not the quiz's own access rules, decides who reads it).
 */
export function liveQuizDetailStatement(ctx: SchoolCtx, quizId: string): BatchItem {
  return batchable(
    ctx,
    sql`SELECT ${quizColumnsSql(ctx)}, ${courseRefsJsonSql(ctx)} AS course_refs, (${quizExamLinks().refsJson(ctx, sql`q.id`)}) AS exam_refs
      FROM quizzes q WHERE q.id = ${quizId} AND ${liveInSchool("q", ctx.tenantId)}`,
  );
}

export interface QuizListRow extends QuizRow {
  question_count: number;
  /** JSON `[attempts, submitted settled count, their score_pct sum, pending reviews]`. */
  attempt_stats: string;
}

/** The list columns: the quiz, its live question count and the attempt aggregates (one scan of its attempts). */
export function quizListColumnsSql(ctx: Caller, attemptScope: SQL): SQL {
  const t = ctx.tenantId;
  return sql`${quizColumnsSql(ctx)},
    (SELECT count(*) FROM quiz_questions qq WHERE ${inSchool("qq", t)} AND qq.quiz_id = q.id AND qq.deleted_at IS NULL) AS question_count,
    (SELECT json_array(count(*),
        coalesce(sum(qa.status = 'submitted' AND qa.pending_review = 0 AND qa.score_pct_hundredths IS NOT NULL), 0),
        coalesce(sum(CASE WHEN qa.status = 'submitted' AND qa.pending_review = 0 THEN qa.score_pct_hundredths END), 0),
        coalesce(sum(qa.status = 'submitted' AND qa.pending_review = 1), 0))
      FROM quiz_attempts qa WHERE ${inSchool("qa", t)} AND qa.quiz_id = q.id AND qa.exam_attempt_id IS NULL AND ${attemptScope}) AS attempt_stats`;
}
