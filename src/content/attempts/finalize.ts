import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { systemActor } from "../../core/school";
import { forSchoolId } from "../../platform/schools/lookup";
import type { ServiceContext } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import type { QuestionType, ScoringMode } from "../../db/schema";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { openMatchToken } from "../quizzes/match-tokens";
import { journal } from "./journal";
import type { JournalQuestion, JournalView } from "./journal-state";
import { readPayload, type Response } from "./payloads";
import { ATTEMPT_COLUMNS, answerRowsSql, attemptRowSql, type AnswerRow, type AttemptRow } from "./present";
import { scoreAnswer, type ScoringQuestion } from "./scoring";
import { formQuestions } from "./form";
import { prepareSettle, settleStatements, type SettleCtx, type SettlePlan, type SettleTarget } from "./settle";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The one finalize every path shares (submit, and past the deadline a read, a save, a submit or
 * the journal's alarm): a closed journal's answers are scored and written to D1 with the attempt's
 * new state and its settling, in one batch. The batch is conditional on the attempt still being
 * `in_progress` (answers and state change) and idempotent in everything else (settle), so a
 * retried write after a lost confirmation changes nothing. Its statements do not grow with the
 * number of questions: the answers travel as one JSON parameter (split only past D1's value size).
 */

/** The attempt row with what scoring needs of its quiz. */
export interface ScoringAttempt extends AttemptRow {
  quiz_deleted_at: number | null;
  default_scoring_mode: ScoringMode;
}

export interface ScoringData {
  attempt: ScoringAttempt | undefined;
  /** Live questions in position order (the attempt's form of them when it has one). */
  questions: ScoringQuestion[];
  plan: SettlePlan;
}

/** A JSON parameter stays well below D1's 2 MB value limit. */
const ANSWERS_CHUNK_CHARS = 900_000;

/** The finalize of a deadline: nobody acted, so nobody is left out of its pushes. */
export function deadlineCtx(ctx: SettleCtx): SettleCtx {
  return { ...ctx, actor: systemActor("attempt_deadline") };
}

/** The quiz's live rows, keyed to the attempt by id (so the reads need not know the quiz). */
export function quizOfAttemptSql(ctx: SettleCtx, attemptId: string): SQL {
  return sql`(SELECT fa.quiz_id FROM quiz_attempts fa WHERE fa.id = ${attemptId} AND ${inSchool("fa", ctx.tenantId)})`;
}

/** Reads for a finalize, for the caller's read batch; `target` null leaves out settle's reads (not a student's attempt). */
export function scoringReads(ctx: SettleCtx, attemptId: string, target: SettleTarget | null) {
  const quizId = quizOfAttemptSql(ctx, attemptId);
  const prep = target ? prepareSettle(ctx, target) : null;
  const statements: BatchItem[] = [
    batchable(
      ctx,
      sql`SELECT ${ATTEMPT_COLUMNS}, q.deleted_at AS quiz_deleted_at, q.default_scoring_mode
        FROM quiz_attempts a JOIN quizzes q ON q.id = a.quiz_id AND q.tenant_id = a.tenant_id
        WHERE a.id = ${attemptId} AND ${inSchool("a", ctx.tenantId)}`,
    ),
    batchable(
      ctx,
      sql`SELECT q.id, q.type, q.points_hundredths, q.scoring_mode, q.correct_text FROM quiz_questions q
        WHERE ${liveInSchool("q", ctx.tenantId)} AND q.quiz_id = ${quizId} ORDER BY q.position, q.id`,
    ),
    batchable(ctx, sql`SELECT qa.question_id, qa.id, qa.is_correct FROM quiz_answers qa WHERE ${liveInSchool("qa", ctx.tenantId)} AND qa.quiz_id = ${quizId}`),
    batchable(
      ctx,
      sql`SELECT m.question_id, m.id, m.left_text IS NOT NULL AS has_left FROM quiz_matches m WHERE ${liveInSchool("m", ctx.tenantId)} AND m.quiz_id = ${quizId}`,
    ),
    ...(prep?.statements ?? []),
  ];
  return {
    statements,
    read(results: readonly unknown[]): ScoringData {
      const [attempt] = rowsOf<ScoringAttempt>(results[0]);
      const questionRows = rowsOf<{ id: string; type: QuestionType; points_hundredths: number; scoring_mode: ScoringMode | null; correct_text: string }>(results[1]);
      const answers = rowsOf<{ question_id: string; id: string; is_correct: number }>(results[2]);
      const matches = rowsOf<{ question_id: string; id: string; has_left: number }>(results[3]);
      const questions = questionRows.map<ScoringQuestion>((row) => ({
        id: row.id,
        type: row.type,
        pointsHundredths: row.points_hundredths,
        scoringMode: row.scoring_mode,
        correctText: JSON.parse(row.correct_text) as string[],
        answers: answers.filter((answer) => answer.question_id === row.id).map((answer) => ({ id: answer.id, isCorrect: answer.is_correct === 1 })),
        matches: matches.filter((match) => match.question_id === row.id).map((match) => ({ id: match.id, hasLeft: match.has_left === 1 })),
      }));
      // An attempt with a form scores its drawn questions only, and its maximum is theirs (docs/decisions/quizzes.md, "Random forms").
      return { attempt, questions: attempt ? formQuestions(attempt, questions) : questions, plan: prep ? prep.read(results.slice(4)) : { prepared: new Map() } };
    },
  };
}

export function journalQuestions(questions: readonly ScoringQuestion[]): JournalQuestion[] {
  return questions.map((question) => ({ id: question.id, type: question.type }));
}

/** The settle target of an attempt row. */
export function settleTarget(row: Pick<AttemptRow, "id" | "quiz_id" | "user_id" | "actor_role" | "exam_attempt_id">): SettleTarget {
  return { attemptId: row.id, quizId: row.quiz_id, userId: row.user_id, actorRole: row.actor_role, examAttemptId: row.exam_attempt_id };
}

/**
 * The payload as stored once scored: the keys of its type only, a matching pair's right side as its
 * row id (the token when it no longer opens). One that is not an answer of its type is stored as
 * `{}` and scores as unanswered: what D1 gets never depends on the shape a client sent.
 */
async function openedResponse(ctx: SettleCtx, question: ScoringQuestion, payload: Record<string, unknown>): Promise<{ response: Response | null; stored: Record<string, unknown> }> {
  const read = readPayload(question.type, payload);
  if (!read.ok) return { response: null, stored: {} };
  if (read.response.type !== "matching") return { response: read.response, stored: read.payload };
  const pairs = await Promise.all(
    read.response.pairs.map(async (pair) => ({ leftId: pair.leftId, rightId: (await openMatchToken(ctx.env, ctx.tenantId, question.id, pair.rightId)) ?? pair.rightId })),
  );
  return { response: { type: "matching", pairs }, stored: { pairs: pairs.map((pair) => ({ left_id: pair.leftId, right_id: pair.rightId })) } };
}

/** One row per answered live question, scored, as the JSON the INSERT reads. */
async function scoredAnswers(ctx: SettleCtx, data: ScoringData, view: JournalView) {
  const byQuestion = new Map(view.entries.map((entry) => [entry.questionId, entry]));
  const rows = [];
  for (const question of data.questions) {
    const entry = byQuestion.get(question.id);
    if (!entry) continue;
    const { response, stored } = await openedResponse(ctx, question, entry.payload);
    const verdict = scoreAnswer(question, data.attempt!.default_scoring_mode, response);
    rows.push({ id: uuidv7(), q: question.id, p: stored, s: entry.clientSeq, w: verdict.awardedHundredths, c: verdict.isCorrect, t: entry.savedAt });
  }
  return rows;
}

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const row of rows) {
    const length = JSON.stringify(row).length;
    if (current.length > 0 && size + length > ANSWERS_CHUNK_CHARS) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(row);
    size += length + 1;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * The write batch of a finalize: the answers (while the attempt is in progress), the attempt's
 * state, settle's statements, then the attempt and its answers read back (the last two results).
 */
export async function finalizeWrites(ctx: SettleCtx, data: ScoringData, view: JournalView): Promise<BatchItem[]> {
  const attempt = data.attempt!;
  const closure = view.closure!;
  const now = ctx.clock.now();
  const open = sql`EXISTS (SELECT 1 FROM quiz_attempts wa WHERE wa.id = ${attempt.id} AND ${inSchool("wa", ctx.tenantId)} AND wa.status = 'in_progress')`;
  const inserts = chunks(await scoredAnswers(ctx, data, view)).map((rows) =>
    batchable(
      ctx,
      sql`INSERT INTO quiz_attempt_answers (id, tenant_id, attempt_id, quiz_id, user_id, question_id, payload, client_seq, awarded_hundredths, is_correct, saved_at)
        SELECT json_extract(j.value, '$.id'), ${ctx.tenantId}, ${attempt.id}, ${attempt.quiz_id}, ${attempt.user_id}, json_extract(j.value, '$.q'),
          json_extract(j.value, '$.p'), json_extract(j.value, '$.s'), json_extract(j.value, '$.w'), json_extract(j.value, '$.c'), json_extract(j.value, '$.t')
        FROM json_each(${JSON.stringify(rows)}) j
        WHERE ${open}
        ON CONFLICT (attempt_id, question_id) DO NOTHING`,
    ),
  );
  const maxScore = data.questions.reduce((sum, question) => sum + question.pointsHundredths, 0);
  const submit = batchable(
    ctx,
    sql`UPDATE quiz_attempts SET status = 'submitted', submitted_at = ${closure.submittedAt}, auto_finalized = ${closure.autoFinalized ? 1 : 0},
        max_score_hundredths = ${maxScore}, updated_at = ${now}
      WHERE id = ${attempt.id} AND ${inSchool(ctx.tenantId)} AND status = 'in_progress'`,
  );
  const settle = await settleStatements(ctx, settleTarget(attempt), data.plan, { finalized: closure.autoFinalized ? "auto_finalized" : "submitted" });
  return [...inserts, submit, ...settle, attemptRowSql(ctx, attempt.id), answerRowsSql(ctx, attempt.id)];
}

/** Runs a finalize's write batch; the attempt and its answers as they are afterwards. */
export async function writeFinalized(ctx: SettleCtx, data: ScoringData, view: JournalView): Promise<{ row: AttemptRow; answers: AnswerRow[] }> {
  const results = await runBatch(ctx, await finalizeWrites(ctx, data, view));
  await dispatchQueued(ctx);
  return { row: rowsOf<AttemptRow>(results[results.length - 2])[0]!, answers: rowsOf<AnswerRow>(results[results.length - 1]) };
}

/** Reads what scoring needs and writes the closed journal; null when the attempt has no row. */
async function finalizeView(ctx: SettleCtx, view: JournalView): Promise<{ row: AttemptRow; answers: AnswerRow[] } | null> {
  const { start } = view;
  const target = settleTarget({ id: start.attemptId, quiz_id: start.quizId, user_id: start.userId, actor_role: start.actorRole, exam_attempt_id: start.examAttemptId ?? null });
  const reads = scoringReads(ctx, start.attemptId, target);
  const data = reads.read(await runBatch(ctx, reads.statements));
  return data.attempt ? writeFinalized(ctx, data, view) : null;
}

/** Reads, writes and confirms a journal a worker request closed (or found closed and not written). */
export async function finalizeClosed(ctx: SettleCtx, view: JournalView): Promise<{ row: AttemptRow; answers: AnswerRow[] }> {
  const written = await finalizeView(ctx, view);
  if (!written) throw new Error(`finalize: attempt ${view.start.attemptId} has no row`);
  await confirmJournal(ctx, view.start.attemptId);
  return written;
}

/** Tells the journal D1 holds the attempt. A lost confirmation costs only a repeated, idempotent write by the alarm. */
export async function confirmJournal(ctx: SettleCtx, attemptId: string): Promise<void> {
  try {
    await journal.confirm(ctx, attemptId);
  } catch (err) {
    log.warn("attempt journal not confirmed; its alarm writes again", { attempt_id: attemptId, error: String(err) });
  }
}

/** The journal's alarm: finalize outside any request (the object confirms itself afterwards), with the object's platform context. */
export async function finalizeByDeadline(services: ServiceContext, view: JournalView): Promise<void> {
  const ctx = await forSchoolId(services, view.start.tenantId, systemActor("attempt_deadline"));
  // A deleted school's attempts are gone with it: nothing is left to finalize.
  if (ctx) await finalizeView(ctx, view);
}
