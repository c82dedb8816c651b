import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { actingUserId } from "../../core/school";
import { auditEntry } from "../../platform/audit/write";
import { applyChunk, CHUNK } from "./chunk";
import { regradeErrors as e } from "./errors";
import { examOutcomesOf, outcomeOf, resultOf } from "./plan";
import { candidatesRead, examAttemptsRead, examRowsFor, questionRead, regradeQuestion, rowsFor, runningSql, settledForRegrade, tookQuestion, type QuestionRow } from "./reads";
import type { RegradeBody, RegradeMode, RegradeResult } from "./schemas";

/**
 * `POST /t/quiz-questions/:id/regrade` (docs/decisions/regrade.md). The dry run is the auth check
 * and two reads (the question, then the attempts it would re-score), a third only for a question in
 * exam sections (the finished exam attempts it re-derives), and writes nothing. The real
 * run computes the same plan, claims the regrade in one batch (the regrade row only while no other
 * regrade of the quiz runs, its attempts as items, the new key, the audit entry), then re-scores
 * the attempts: at once when they fit one chunk, else on the `lms-regrade` queue, chunk after
 * chunk, so no request waits on a large quiz. Either way it answers with the plan.
 */

interface Key {
  correctAnswerIds?: string[];
  correctText?: string[];
}

/** The key a `new_key` body gives, checked against the question (400 `invalid_request_body` when it does not fit). */
function keyOf(body: RegradeBody, question: QuestionRow): Key | undefined {
  if (body.mode !== "new_key") return undefined;
  const misfit = (message: string) => new ApiError(e.INVALID_REQUEST_BODY, { message });
  if (question.type === "matching") throw misfit("A matching question's key is its pairs: edit them with PATCH /t/quiz-questions/:id.");
  if (question.type === "free_text") {
    if (body.correct_text === undefined) throw misfit("A free-text question takes correct_text.");
    return { correctText: body.correct_text };
  }
  if (body.correct_answer_ids === undefined) throw misfit("A choice question takes correct_answer_ids.");
  const ids = body.correct_answer_ids.map((id) => id.toLowerCase());
  const live = new Set((JSON.parse(question.answers) as { id: string }[]).map((answer) => answer.id));
  if (new Set(ids).size !== ids.length) throw misfit("correct_answer_ids lists an answer twice.");
  if (!ids.every((id) => live.has(id))) throw misfit("correct_answer_ids must name live answers of this question.");
  if (question.type === "single" && ids.length !== 1) throw misfit("A single-choice question has exactly one correct answer.");
  return { correctAnswerIds: ids };
}

/** The body's own rules, before anything is read: a key for new_key only, one kind of key, and one is needed. */
function checkBody(body: RegradeBody): void {
  const keys = (body.correct_answer_ids === undefined ? 0 : 1) + (body.correct_text === undefined ? 0 : 1);
  if (body.mode !== "new_key" && keys > 0) throw new ApiError(e.INVALID_REQUEST_BODY, { message: `mode ${body.mode} takes no key.` });
  if (keys > 1) throw new ApiError(e.INVALID_REQUEST_BODY, { message: "Give correct_answer_ids or correct_text, not both." });
  if (body.mode === "new_key" && keys === 0) throw new ApiError(e.REGRADE_KEY_REQUIRED);
}

/** The question's key as the audit shows it. */
function storedKey(question: QuestionRow): unknown {
  if (question.type === "free_text") return { correct_text: JSON.parse(question.correct_text) as string[] };
  const answers = JSON.parse(question.answers) as { id: string; is_correct: number }[];
  return { correct_answer_ids: answers.filter((answer) => answer.is_correct === 1).map((answer) => answer.id) };
}

/** The new key's statements: the answers' `is_correct` or the question's `correct_text`, and the question's and quiz's `updated_at`. */
function keyStatements(ctx: SchoolCtx, question: QuestionRow, key: Key, claimed: SQL, now: number): BatchItem[] {
  const t = ctx.tenantId;
  const out: BatchItem[] = [];
  if (key.correctAnswerIds) {
    out.push(
      batchable(
        ctx,
        sql`UPDATE quiz_answers SET is_correct = (id IN (SELECT value FROM json_each(${JSON.stringify(key.correctAnswerIds)})))
          WHERE ${liveInSchool("quiz_answers", t)} AND question_id = ${question.id} AND ${claimed}`,
      ),
    );
  }
  const text = key.correctText ? sql`correct_text = ${JSON.stringify(key.correctText)},` : sql``;
  out.push(
    batchable(ctx, sql`UPDATE quiz_questions SET ${text} updated_at = ${now} WHERE id = ${question.id} AND ${inSchool("quiz_questions", t)} AND ${claimed}`),
    batchable(ctx, sql`UPDATE quizzes SET updated_at = ${now} WHERE id = ${question.quiz_id} AND ${inSchool("quizzes", t)} AND ${claimed}`),
  );
  return out;
}

/** Claims the regrade: null when another regrade of the quiz runs. Returns how many attempts it lists. */
async function claim(ctx: SchoolCtx, input: { id: string; question: QuestionRow; mode: RegradeMode; key: Key | undefined; affected: number }): Promise<number | null> {
  const { id, question, mode, key } = input;
  const t = ctx.tenantId;
  const now = ctx.clock.now();
  const claimed = sql`EXISTS (SELECT 1 FROM quiz_regrades cr WHERE cr.id = ${id} AND ${inSchool("cr", t)})`;
  const storedKeyJson = key ? JSON.stringify(key.correctAnswerIds ? { correct_answer_ids: key.correctAnswerIds } : { correct_text: key.correctText }) : null;
  const statements: BatchItem[] = [
    batchable(
      ctx,
      sql`INSERT INTO quiz_regrades (id, tenant_id, quiz_id, question_id, seq, mode, key, points_hundredths, status, created_by, created_at, finished_at)
        SELECT ${id}, ${t}, ${question.quiz_id}, ${question.id},
          (SELECT COALESCE(MAX(sq.seq), 0) + 1 FROM quiz_regrades sq WHERE ${inSchool("sq", t)} AND sq.question_id = ${question.id}),
          ${mode}, ${storedKeyJson}, ${question.points_hundredths}, 'running', ${actingUserId(ctx.actor)}, ${now}, NULL
        WHERE NOT ${runningSql(ctx, question.quiz_id, now)}
          AND EXISTS (SELECT 1 FROM quiz_questions lq WHERE lq.id = ${question.id} AND ${liveInSchool("lq", t)})`,
    ),
    batchable(
      ctx,
      sql`INSERT INTO quiz_regrade_items (tenant_id, regrade_id, attempt_id, user_id, old_score_pct_hundredths, old_passed, new_score_pct_hundredths, new_passed, applied_at)
        SELECT a.tenant_id, ${id}, a.id, a.user_id, a.score_pct_hundredths, a.passed, NULL, NULL, NULL FROM quiz_attempts a
        WHERE ${inSchool("a", t)} AND a.quiz_id = ${question.quiz_id} AND ${settledForRegrade(ctx)}
          AND ${tookQuestion(ctx, question, mode)} AND ${claimed}`,
    ),
    ...(key ? keyStatements(ctx, question, key, claimed, now) : []),
    auditEntry(ctx, {
      action: "regrade.applied",
      targetType: "quiz_question",
      targetId: question.id,
      summary: `Question of “${question.quiz_title}” regraded (${mode})`,
      changes: {
        mode: [null, mode],
        ...(key ? { key: [storedKey(question), key.correctAnswerIds ? { correct_answer_ids: key.correctAnswerIds } : { correct_text: key.correctText }] } : {}),
        affected_attempts: [null, input.affected],
      },
      when: claimed,
    }),
    batchable(ctx, sql`SELECT ${claimed} AS claimed, (SELECT count(*) FROM quiz_regrade_items ci WHERE ${inSchool("ci", t)} AND ci.regrade_id = ${id}) AS items`),
  ];
  const results = await runBatch(ctx, statements);
  const row = rowsOf<{ claimed: number; items: number }>(results[results.length - 1])[0]!;
  return row.claimed === 1 ? row.items : null;
}

export async function regradeQuestionVerb(ctx: SchoolCtx, input: { questionId: string; body: RegradeBody }): Promise<RegradeResult> {
  const { body } = input;
  checkBody(body);
  const [questionResult] = await runBatch(ctx, [questionRead(ctx, input.questionId)]);
  const question = rowsOf<QuestionRow>(questionResult)[0];
  if (!question) throw new ApiError(e.QUESTION_NOT_FOUND);
  const key = keyOf(body, question);
  if (question.running === 1) throw new ApiError(e.REGRADE_IN_PROGRESS);
  const [candidates] = await runBatch(ctx, [candidatesRead(ctx, question, body.mode)]);
  const scoring = regradeQuestion(question, key);
  const rows = rowsFor(candidates);
  const outcomes = rows.map((row) => outcomeOf(scoring, body.mode, row));
  // A question in exam sections: one more read, of the finished exam attempts those sections belong to.
  const examReads = examAttemptsRead(ctx, rows);
  const exams = examReads.length > 0 ? examOutcomesOf(examRowsFor((await runBatch(ctx, examReads))[0]), outcomes) : [];
  const dryRun = body.dry_run ?? true;
  const result = resultOf(dryRun, outcomes, exams);
  if (dryRun) return result;

  const id = uuidv7(ctx.clock.now());
  const items = await claim(ctx, { id, question, mode: body.mode, key, affected: result.affected_attempts });
  if (items === null) throw new ApiError(e.REGRADE_IN_PROGRESS);
  if (items <= CHUNK) await applyChunk(ctx, { regradeId: id, questionId: question.id });
  else await sendChunk(ctx, { regradeId: id, questionId: question.id });
  return result;
}

/** Hands the next chunk to the queue; a failed send is logged (the regrade then goes stale and stops blocking after `STALE_AFTER_MS`, reads.ts). */
export async function sendChunk(ctx: SchoolCtx<SchoolActor>, input: { regradeId: string; questionId: string }): Promise<void> {
  await ctx.env.REGRADE.send({ kind: "regrade", tenant_id: ctx.tenantId, regrade_id: input.regradeId, question_id: input.questionId }).catch((err: unknown) => {
    log.error("regrade message not sent", { regrade_id: input.regradeId, error: String(err) });
  });
}
