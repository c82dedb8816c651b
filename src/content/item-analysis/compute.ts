import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import type { QuestionType } from "../../db/schema";
import { readPayload, storedPayload } from "../attempts/payloads";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { ItemAccumulator, type ItemAnalysisFigures, type ItemAnswer, type ItemQuestion } from "./stats";

/**
 * Reads what the item figures need and computes them (src/content/item-analysis/stats.ts): the
 * quiz's live questions, then the counted attempts in keyset pages of `PAGE` with their answers,
 * one batch of two statements per page, so no statement reads more than a page's answers
 * (docs/decisions/item-analysis.md, "Snapshot and freshness").
 */

/** A counted attempt is settled, outside exam sections (quiz analytics' rule). */
export const SETTLED = sql`a.exam_attempt_id IS NULL AND a.status = 'submitted' AND a.pending_review = 0`;

/** Attempts per page: at 50 questions a page's answers are 25,000 rows. */
export const PAGE = 500;

interface QuizRow {
  questions_per_attempt: number | null;
}

interface QuestionRow {
  id: string;
  type: QuestionType;
  points_hundredths: number;
  updated_at: number;
}

/**
 * `FROM … WHERE …` of the rows (attempts or the figures kept of them, alias `a`) a figure counts:
 * quiz analytics' rule (src/content/common/analytics.ts, `countedAttemptsSql`) for students'
 * attempts only, for a route's caller or the queue's job (which counts everyone's).
 */
export function countedSql(ctx: SchoolCtx<SchoolActor>, table: "quiz_attempts" | "quiz_figures" | "quiz_question_figures", quizId: string, extra?: SQL): SQL {
  const t = ctx.tenantId;
  const scope = ctx.actor.role === "system" ? undefined : scopeCondition(sql`a.user_id`, restrictedScope(ctx as SchoolCtx));
  return sql`FROM ${sql.raw(table)} a
      JOIN users u ON u.id = a.user_id AND ${liveInSchool("u", t)}
    WHERE ${inSchool("a", t)} AND a.quiz_id = ${quizId} AND a.actor_role = 'student'
      ${scope ? sql`AND ${scope}` : sql``} ${extra ? sql`AND ${extra}` : sql``}`;
}

/** The quiz (null when it is not a live quiz of the school), its live questions and their live answers. */
export async function readQuizItems(ctx: SchoolCtx<SchoolActor>, quizId: string): Promise<{ quiz: QuizRow; questions: ItemQuestion[]; stamps: string[] } | null> {
  const [quiz, questions, answers] = await runBatch(ctx, itemReads(ctx, quizId));
  return quizItemsOf(quiz, questions, answers);
}

/** The three reads of `readQuizItems`, for a caller that puts more in the same batch. */
export function itemReads(ctx: SchoolCtx<SchoolActor>, quizId: string) {
  const t = ctx.tenantId;
  return [
    batchable(ctx, sql`SELECT q.questions_per_attempt FROM quizzes q WHERE q.id = ${quizId} AND ${liveInSchool("q", t)}`),
    batchable(
      ctx,
      sql`SELECT qq.id, qq.type, qq.points_hundredths, qq.updated_at FROM quiz_questions qq
        WHERE ${inSchool("qq", t)} AND qq.quiz_id = ${quizId} AND qq.deleted_at IS NULL ORDER BY qq.position, qq.id`,
    ),
    batchable(
      ctx,
      sql`SELECT qa.id, qa.question_id FROM quiz_questions qq
          JOIN quiz_answers qa ON qa.question_id = qq.id AND ${inSchool("qa", t)} AND qa.deleted_at IS NULL
        WHERE ${inSchool("qq", t)} AND qq.quiz_id = ${quizId} AND qq.deleted_at IS NULL AND qq.type IN ('single', 'multiple')
        ORDER BY qa.position, qa.id`,
    ),
  ];
}

export function quizItemsOf(quiz: unknown, questions: unknown, answers: unknown): { quiz: QuizRow; questions: ItemQuestion[]; stamps: string[] } | null {
  const quizRow = rowsOf<QuizRow>(quiz)[0];
  if (!quizRow) return null;
  const rows = rowsOf<QuestionRow>(questions);
  const answerIds = new Map<string, string[]>(rows.map((row) => [row.id, []]));
  for (const answer of rowsOf<{ id: string; question_id: string }>(answers)) answerIds.get(answer.question_id)?.push(answer.id);
  return {
    quiz: quizRow,
    questions: rows.map((row) => ({ id: row.id, type: row.type, pointsHundredths: row.points_hundredths, answerIds: answerIds.get(row.id) ?? [] })),
    // The options too: an answer added or deleted changes the option list without touching the question.
    stamps: rows.map((row) => `${row.id}:${row.points_hundredths}:${row.updated_at}:${(answerIds.get(row.id) ?? []).join(",")}`),
  };
}

interface AttemptRow {
  id: string;
  score_hundredths: number | null;
  score_pct_hundredths: number | null;
  form_question_ids: string | null;
}

interface AnswerRow {
  attempt_id: string;
  question_id: string;
  awarded: number;
  payload: string | null;
}

/**
 * The figures over the attempts the caller counts: settled student attempts of the quiz outside
 * exam sections, of live members, a restricted curator's own students only (quiz analytics' rule).
 */
export async function computeItemFigures(ctx: SchoolCtx<SchoolActor>, quizId: string, items: { quiz: QuizRow; questions: ItemQuestion[] }): Promise<ItemAnalysisFigures> {
  const t = ctx.tenantId;
  const types = new Map(items.questions.map((question) => [question.id, question.type]));
  const drawsSubset = items.quiz.questions_per_attempt !== null && items.quiz.questions_per_attempt < items.questions.length;
  const accumulator = new ItemAccumulator(items.questions, drawsSubset);
  let after = "";
  for (;;) {
    const page = sql`SELECT a.id ${countedSql(
      ctx,
      "quiz_attempts",
      quizId,
      sql`${SETTLED} AND a.id > ${after}`,
    )} ORDER BY a.id LIMIT ${PAGE}`;
    const [attemptRows, answerRows] = await runBatch(ctx, [
      batchable(
        ctx,
        sql`SELECT p.id, p.score_hundredths, p.score_pct_hundredths, p.form_question_ids
          FROM quiz_attempts p WHERE p.id IN (${page}) AND ${inSchool("p", t)} ORDER BY p.id`,
      ),
      batchable(
        ctx,
        sql`SELECT ans.attempt_id, ans.question_id, coalesce(ans.awarded_hundredths, 0) AS awarded,
            CASE WHEN qq.type IN ('single', 'multiple') THEN ans.payload END AS payload
          FROM quiz_attempt_answers ans
            JOIN quiz_questions qq ON qq.id = ans.question_id AND ${inSchool("qq", t)} AND qq.deleted_at IS NULL
          WHERE ans.attempt_id IN (${page}) AND ${inSchool("ans", t)}`,
      ),
    ]);
    const attempts = rowsOf<AttemptRow>(attemptRows);
    const answers = new Map<string, ItemAnswer[]>();
    for (const row of rowsOf<AnswerRow>(answerRows)) {
      const list = answers.get(row.attempt_id) ?? [];
      list.push({ questionId: row.question_id, awardedHundredths: row.awarded, chosen: chosenIds(types.get(row.question_id), row.payload) });
      answers.set(row.attempt_id, list);
    }
    for (const attempt of attempts) {
      accumulator.add(
        {
          id: attempt.id,
          scoreHundredths: attempt.score_hundredths ?? 0,
          scorePctHundredths: attempt.score_pct_hundredths ?? 0,
          formQuestionIds: attempt.form_question_ids === null ? null : (JSON.parse(attempt.form_question_ids) as string[]),
        },
        answers.get(attempt.id) ?? [],
      );
    }
    if (attempts.length < PAGE) break;
    after = attempts[attempts.length - 1]!.id;
  }
  return accumulator.result();
}

/** The answer ids a stored choice payload names; none for the other types or a payload that does not read. */
function chosenIds(type: QuestionType | undefined, payload: string | null): string[] {
  if (payload === null || (type !== "single" && type !== "multiple")) return [];
  const read = readPayload(type, storedPayload(payload));
  if (!read.ok) return [];
  if (read.response.type === "single") return read.response.answerId === null ? [] : [read.response.answerId];
  return read.response.type === "multiple" ? read.response.answerIds : [];
}
