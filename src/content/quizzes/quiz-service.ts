import { and, sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { batchable, changedRows, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { quizzes } from "../../db/schema";
import { isStaff } from "../common/access";
import { quizzesErrors } from "./errors";
import { quizDeleteGuards } from "./exam-links";
import { presentQuestionRows, questionQueries, type QuestionRows } from "./question-present";
import { presentNewQuiz, presentQuizDetail, type QuizDetailView } from "./present";
import { quizDetailStatement, type QuizDetailRow } from "./quiz-read";
import type { CreateQuizBody, UpdateQuizBody } from "./schemas";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The quizzes (as the caller may read them) with their questions in the caller's view, after
 * `before` (a write whose answer they are), all in one batch: one round trip. Quizzes the caller
 * may not read are absent from the map.
 */
async function readQuizzes(ctx: SchoolCtx, ids: readonly string[], before: readonly BatchItem[] = []): Promise<Map<string, QuizDetailView>> {
  const results = await runBatch(ctx, [...before, quizDetailStatement(ctx, ids), ...(questionQueries(ctx, { quizIds: ids }) as unknown as BatchItem[])]);
  const [quizResult, ...questionResults] = results.slice(before.length);
  const rows = rowsOf<QuizDetailRow>(quizResult);
  const out = new Map<string, QuizDetailView>();
  if (rows.length === 0) return out;
  const questions = await presentQuestionRows(ctx, questionResults as unknown as QuestionRows, isStaff(ctx.actor) ? "staff" : "student");
  for (const row of rows) out.set(row.id, presentQuizDetail(ctx, row, questions.get(row.id) ?? []));
  return out;
}

/** The quizzes that reference blocks embed, in the caller's view (reference-block embeds). */
export function quizzesForEmbed(ctx: SchoolCtx, ids: readonly string[]): Promise<Map<string, QuizDetailView>> {
  return readQuizzes(ctx, ids);
}

/** POST /t/quizzes: one statement; a new quiz has no questions and nothing references it. */
export async function createQuiz(ctx: SchoolCtx, input: { body: z.infer<typeof CreateQuizBody> }) {
  const { body } = input;
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(quizzes)
    .values({
      id: uuidv7(now),
      tenantId: ctx.tenantId,
      title: body.title,
      description: body.description ?? "",
      maxAttempts: body.max_attempts ?? null,
      timeLimitSeconds: body.time_limit_seconds ?? null,
      passingScore: body.passing_score ?? null,
      retakePolicy: body.retake_policy ?? "best",
      defaultScoringMode: body.default_scoring_mode ?? "all_or_nothing",
      screenshotProtectionEnabled: body.screenshot_protection_enabled ?? false,
      questionsPerAttempt: body.questions_per_attempt ?? null,
      shuffleQuestions: body.shuffle_questions ?? false,
      shuffleAnswers: body.shuffle_answers ?? false,
      createdBy: ctx.actor.userId,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return presentNewQuiz(ctx, row!);
}

function detailOr404(quizzesById: Map<string, QuizDetailView>, id: string): QuizDetailView {
  const quiz = quizzesById.get(id);
  if (!quiz) throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
  return quiz;
}

/**
 * GET /t/quizzes/:id: one batch. Staff read any live quiz of the school with the answers; a
 * student reads only a quiz they reach (anything else is `quiz_not_found`), in the safe view.
 */
export async function getQuiz(ctx: SchoolCtx, input: { id: string }) {
  return detailOr404(await readQuizzes(ctx, [input.id]), input.id);
}

/** PATCH /t/quizzes/:id: the update and the quiz's new state in one batch. */
export async function updateQuiz(ctx: SchoolCtx, input: { id: string; body: z.infer<typeof UpdateQuizBody> }) {
  const { id, body } = input;
  const changes = {
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.max_attempts !== undefined ? { maxAttempts: body.max_attempts } : {}),
    ...(body.time_limit_seconds !== undefined ? { timeLimitSeconds: body.time_limit_seconds } : {}),
    ...(body.passing_score !== undefined ? { passingScore: body.passing_score } : {}),
    ...(body.retake_policy !== undefined ? { retakePolicy: body.retake_policy } : {}),
    ...(body.default_scoring_mode !== undefined ? { defaultScoringMode: body.default_scoring_mode } : {}),
    ...(body.screenshot_protection_enabled !== undefined ? { screenshotProtectionEnabled: body.screenshot_protection_enabled } : {}),
    ...(body.questions_per_attempt !== undefined ? { questionsPerAttempt: body.questions_per_attempt } : {}),
    ...(body.shuffle_questions !== undefined ? { shuffleQuestions: body.shuffle_questions } : {}),
    ...(body.shuffle_answers !== undefined ? { shuffleAnswers: body.shuffle_answers } : {}),
  };
  if (Object.keys(changes).length === 0) return getQuiz(ctx, { id });
  const perAttempt = body.questions_per_attempt ?? null;
  // The draw size is checked against the live questions in the UPDATE itself, so a question deleted meanwhile cannot slip under it.
  const fits = perAttempt === null ? sql`1` : sql`${perAttempt} <= (SELECT count(*) FROM quiz_questions fq WHERE ${liveInSchool("fq", ctx.tenantId)} AND fq.quiz_id = ${id})`;
  const update = ctx.db
    .update(quizzes)
    .set({ ...changes, updatedAt: ctx.clock.now() })
    .where(and(liveRowWhere(quizzes, ctx.tenantId, id), fits));
  const quiz = detailOr404(await readQuizzes(ctx, [id], [update as unknown as BatchItem]), id);
  if (perAttempt !== null && quiz.questions.length < perAttempt) throw new ApiError(quizzesErrors.QUESTIONS_PER_ATTEMPT_TOO_LARGE);
  return quiz;
}

/**
 * DELETE /t/quizzes/:id: soft. The delete guards (exams) are read once to answer their 409 and
 * repeated as the UPDATE's condition, so a link made in between wins. Questions stay as they are:
 * attempts in progress keep their questions, and nothing reaches them once the quiz is gone.
 */
export async function deleteQuiz(ctx: SchoolCtx, input: { id: string }): Promise<void> {
  const { id } = input;
  const guards = quizDeleteGuards();
  const held = (quizId: SQL) => guards.map((guard) => guard.holds(ctx.tenantId, quizId));
  const check = async () => {
    const flags = held(sql`q.id`).map((holds, i) => sql`, (${holds}) AS g${sql.raw(String(i))}`);
    const [row] = await ctx.db.all<Record<string, number>>(
      sql`SELECT q.id ${sql.join(flags, sql``)} FROM quizzes q WHERE q.id = ${id} AND ${liveInSchool("q", ctx.tenantId)}`,
    );
    if (!row) throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
    const blocking = guards.find((_, i) => Number(row[`g${i}`]) === 1);
    if (blocking) throw new ApiError(blocking.failure);
  };
  await check();
  const now = ctx.clock.now();
  const free = held(sql`${id}`).map((holds) => sql` AND NOT (${holds})`);
  const [deleted] = await runBatch(ctx, [
    batchable(ctx, sql`UPDATE quizzes SET deleted_at = ${now}, updated_at = ${now}
      WHERE ${inSchool(ctx.tenantId)} AND id = ${id} AND deleted_at IS NULL${sql.join(free, sql``)}`),
  ]);
  // Deleted or linked since the check: it answers as it now stands.
  if (changedRows(deleted) === 0) await check();
}
