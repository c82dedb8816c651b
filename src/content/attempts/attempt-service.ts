import { sql } from "drizzle-orm";
import { batchable, changedRows, insertWhere, rowsOf, runBatch } from "../../core/db/batch";
import { contentStatements } from "../common/events";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { ACTOR_ROLES, quizAttempts, type QuestionType } from "../../db/schema";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { quizAccessLessonsSql } from "../quizzes/access";
import { quizzesErrors } from "../quizzes/errors";
import { lessonChainWindowsSql } from "../common/windows";
import { scheduleRefusesEverywhere, type LessonWindows } from "../schedule/availability";
import { scheduleErrors } from "../schedule/errors";
import { isStaff } from "../common/access";
import { coursesErrors } from "../courses/errors";
import { attemptsErrors } from "./errors";
import { deadlineCtx, finalizeClosed } from "./finalize";
import { journal, journalStart } from "./journal";
import type { JournalQuestion, JournalView } from "./journal-state";
import { drawForm, drawsForm, formColumns, formOfRow, formQuestions, formView, newFormSeed, type FormSettings } from "./form";
import { loadQuestions, type StudentQuestion } from "../quizzes/question-present";
import { ATTEMPT_COLUMNS, answerRowsSql, attemptRowSql, presentInProgress, presentSubmitted, type AnswerRow, type AttemptRow, type AttemptView } from "./present";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { effectiveMaxAttempts, effectiveTimeLimit, profileColumnsSql, profileOf } from "../accommodations/effective";

/**
 * Starting and reading quiz attempts (docs/decisions/quizzes.md, "Quiz attempts"). A start is one read batch
 * (the quiz, the caller's attempts, the lessons that give a student access with their windows, the
 * questions) and one conditional INSERT: the attempt limit and the single attempt in progress are
 * conditions of the INSERT, so concurrent starts cannot pass them. The journal object is started
 * after the row exists; every later call that finds the row hands the journal its start again
 * (idempotent), so a lost start call loses nothing.
 */

type QuestionRow = JournalQuestion & { points_hundredths: number };

function liveTotal(questions: readonly QuestionRow[]): number {
  return questions.reduce((sum, question) => sum + question.points_hundredths, 0);
}

/** The in-progress view of an attempt through its journal; a journal found past its deadline is finalized first. */
async function journalView(ctx: SchoolCtx, row: AttemptRow, questions: readonly QuestionRow[]): Promise<AttemptView> {
  const outcome = await journal.read(ctx, row.id, { tenantId: ctx.tenantId, ensure: journalStart(ctx, row, questions) });
  if (outcome.outcome === "not_found") throw new ApiError(attemptsErrors.ATTEMPT_NOT_FOUND);
  if (outcome.outcome === "open") return presentInProgress(row, { liveTotal: liveTotal(formQuestions(row, questions)), entries: outcome.view.entries, now: outcome.view.now });
  if (outcome.outcome === "closed" && outcome.confirmed) {
    const results = await runBatch(ctx, [attemptRowSql(ctx, row.id), answerRowsSql(ctx, row.id)]);
    return presentSubmitted(rowsOf<AttemptRow>(results[0])[0]!, rowsOf<AnswerRow>(results[1]), ctx.clock.now());
  }
  const written = await finalizeJournal(ctx, outcome.view);
  return presentSubmitted(written.row, written.answers, ctx.clock.now());
}

/** A journal closed by this request past its deadline (or closed and not yet written): nobody acted, the deadline did. */
export function finalizeJournal(ctx: SchoolCtx, view: JournalView) {
  return finalizeClosed(deadlineCtx(ctx), view);
}

function questionsSql(ctx: SchoolCtx, quizId: ReturnType<typeof sql> | string) {
  return batchable(
    ctx,
    sql`SELECT q.id, q.type, q.points_hundredths FROM quiz_questions q
      WHERE ${liveInSchool("q", ctx.tenantId)} AND q.quiz_id = ${quizId} ORDER BY q.position, q.id`,
  );
}

function inProgressSql(ctx: SchoolCtx, quizId: string) {
  return batchable(
    ctx,
    sql`SELECT ${ATTEMPT_COLUMNS} FROM quiz_attempts a WHERE ${inSchool("a", ctx.tenantId)} AND a.quiz_id = ${quizId}
      AND a.user_id = ${ctx.actor.userId} AND a.status = 'in_progress' AND a.exam_attempt_id IS NULL`,
  );
}

/** The caller's attempts of the quiz outside exam sections, any status (the attempt limit counts them all). */
function usedSql(ctx: SchoolCtx, quizId: string) {
  return sql`(SELECT count(*) FROM quiz_attempts u WHERE ${inSchool("u", ctx.tenantId)} AND u.quiz_id = ${quizId}
    AND u.user_id = ${ctx.actor.userId} AND u.exam_attempt_id IS NULL)`;
}

/** POST /attempts: the caller's attempt in progress (200), or a new one (201). */
export async function startAttempt(ctx: SchoolCtx, input: { quizId: string }): Promise<{ attempt: AttemptView; created: boolean }> {
  const role = ctx.actor.role;
  if (!(ACTOR_ROLES as readonly string[]).includes(role)) throw new ApiError(attemptsErrors.INVALID_ACTOR_ROLE);
  const student = !isStaff(ctx.actor);
  const { quizId } = input;
  const lessons = sql`SELECT ql.id, ql.module_id, ql.course_id, ql.locked, ${lessonChainWindowsSql(ctx, sql`ql`)} AS windows
    FROM (${quizAccessLessonsSql(ctx.tenantId, quizId, ctx.actor.userId)}) ql`;
  const reads = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT q.max_attempts, q.time_limit_seconds, q.questions_per_attempt, q.shuffle_questions, q.shuffle_answers, ${usedSql(ctx, quizId)} AS used, ${profileColumnsSql(ctx.tenantId, ctx.actor.userId)}
        FROM quizzes q WHERE q.id = ${quizId} AND ${liveInSchool("q", ctx.tenantId)}`,
    ),
    inProgressSql(ctx, quizId),
    questionsSql(ctx, quizId),
    batchable(ctx, student ? lessons : sql`SELECT 1 WHERE 0`),
  ]);
  const [quiz] = rowsOf<FormSettings & { max_attempts: number | null; time_limit_seconds: number | null; used: number; acc_multiplier: number | null }>(reads[0]);
  const [existing] = rowsOf<AttemptRow>(reads[1]);
  const questions = rowsOf<QuestionRow & { type: QuestionType }>(reads[2]);
  const access = rowsOf<LessonWindows & { locked: number }>(reads[3]);
  if (!quiz || (student && access.length === 0)) throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
  // Only the lessons whose block the course order leaves open give the quiz (their dates decide next).
  const open = access.filter((lesson) => lesson.locked === 0);

  if (existing) {
    const view = await journalView(ctx, existing, questions);
    if (view.status === "in_progress") return { attempt: view, created: false };
  }
  if (student && open.length === 0) throw new ApiError(coursesErrors.SEQUENTIAL_ORDER_REQUIRED);
  const now = ctx.clock.now();
  if (student && scheduleRefusesEverywhere(open, now, quiz.used === 0)) throw new ApiError(scheduleErrors.WINDOW_CLOSED);

  const id = uuidv7(now);
  // The student's accommodation, frozen into this attempt (docs/decisions/accommodations.md, "Effective limits").
  const profile = profileOf(quiz, student);
  const maxAttempts = effectiveMaxAttempts(quiz.max_attempts, profile);
  const timeLimit = effectiveTimeLimit(quiz.time_limit_seconds, profile);
  const limit = maxAttempts === null ? sql`1` : sql`${usedSql(ctx, quizId)} < ${maxAttempts}`;
  // The attempt's form, drawn once here and stored with it (docs/decisions/quizzes.md, "Random forms").
  const form = drawsForm(quiz) ? drawForm(quiz, questions.map((question) => question.id), newFormSeed()) : null;
  const results = await runBatch(ctx, [
    insertWhere(
      ctx,
      quizAttempts,
      {
        id,
        tenantId: ctx.tenantId,
        quizId,
        userId: ctx.actor.userId,
        actorRole: role as AttemptRow["actor_role"],
        status: "in_progress",
        startedAt: now,
        deadlineAt: timeLimit === null ? null : now + timeLimit * 1000,
        ...formColumns(form),
        createdAt: now,
        updatedAt: now,
      },
      sql`${limit} AND NOT EXISTS (SELECT 1 FROM quiz_attempts p WHERE ${inSchool("p", ctx.tenantId)} AND p.quiz_id = ${quizId}
          AND p.user_id = ${ctx.actor.userId} AND p.status = 'in_progress' AND p.exam_attempt_id IS NULL)
        AND EXISTS (SELECT 1 FROM quizzes lq WHERE lq.id = ${quizId} AND ${liveInSchool("lq", ctx.tenantId)})`,
    ),
    inProgressSql(ctx, quizId),
    ...(await contentStatements(ctx, { type: "attempt.recorded", attempt: "quiz", objectId: quizId, userId: ctx.actor.userId })),
  ]);
  const [row] = rowsOf<AttemptRow>(results[1]);
  if (!row) throw new ApiError(attemptsErrors.MAX_ATTEMPTS_REACHED);
  const created = changedRows(results[0]) === 1;
  return { attempt: await journalView(ctx, row, questions), created };
}

/**
 * GET /attempts/:id: the owner always; staff within their scope (a restricted curator only their
 * students' attempts); anyone else 404. An attempt in progress shows the journal's saved answers.
 */
export async function getAttempt(ctx: SchoolCtx, input: { id: string }): Promise<AttemptView & { questions?: StudentQuestion[] }> {
  const scope = restrictedScope(ctx);
  const staff = isStaff(ctx.actor) ? (scopeCondition(sql`a.user_id`, scope) ?? sql`1`) : sql`0`;
  const quizOf = sql`(SELECT qa.quiz_id FROM quiz_attempts qa WHERE qa.id = ${input.id} AND ${inSchool("qa", ctx.tenantId)})`;
  const results = await runBatch(ctx, [
    batchable(ctx, sql`SELECT ${ATTEMPT_COLUMNS} FROM quiz_attempts a WHERE a.id = ${input.id} AND ${inSchool("a", ctx.tenantId)} AND (a.user_id = ${ctx.actor.userId} OR ${staff})`),
    answerRowsSql(ctx, input.id),
    questionsSql(ctx, quizOf),
  ]);
  const [row] = rowsOf<AttemptRow>(results[0]);
  if (!row) throw new ApiError(attemptsErrors.ATTEMPT_NOT_FOUND);
  const view = row.status === "submitted" ? presentSubmitted(row, rowsOf<AnswerRow>(results[1]), ctx.clock.now()) : await journalView(ctx, row, rowsOf<QuestionRow>(results[2]));
  const form = formOfRow(row);
  if (form === null) return view;
  // An attempt with a form shows exactly its questions, in its order, as a student sees them (one more read).
  const questions = (await loadQuestions(ctx, [row.quiz_id], "student")).get(row.quiz_id) ?? [];
  return { ...view, questions: formView(form, questions) };
}
