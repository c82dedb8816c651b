import { and, asc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, insertWhere, runBatch, type BatchItem } from "../../core/db/batch";
import { liveRow, liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { checkReorder, orderingErrors } from "../../core/http/reorder";
import { uuidv7 } from "../../core/lib/ids";
import { quizAnswers, quizQuestions, quizzes } from "../../db/schema";
import { assetRef } from "../../platform/media/asset-ref";
import { appendPosition, reorderStatement, siblingKeys, type OrderedList } from "../common/ordering";
import { quizzesErrors } from "./errors";
import { presentQuestion, questionQueries, type QuestionRows, type StaffQuestion } from "./question-present";
import { checkNewQuestion, planQuestionUpdate, type CreateQuestionInput, type QuestionUpdatePlan, type UpdateQuestionInput } from "./question-validate";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Authoring of quiz questions (manage_courses). Each write is one batch of conditional statements
 * that also bumps the quiz's `updated_at` and reads the question back. A question of a deleted
 * quiz is gone as well: every statement requires the quiz to be live.
 */

const quizLive = (tenantId: string, quizId: SQL) => sql`EXISTS (SELECT 1 FROM quizzes z WHERE z.id = ${quizId} AND ${liveInSchool("z", tenantId)})`;

const questionsOf = (quizId: string): OrderedList => ({ table: quizQuestions, parent: { column: quizQuestions.quizId, id: quizId } });

const imageRef = assetRef("image");

async function checkImage(ctx: SchoolCtx, field: string, value: string | readonly string[] | null | undefined): Promise<void> {
  await imageRef.check(ctx, { tenantId: ctx.tenantId, field, value, invalid: quizzesErrors.INVALID_QUIZ_IMAGE_ASSET });
}

/** Runs the writes, then reads the question back in the same batch. */
async function writeAndRead(ctx: SchoolCtx, questionId: string, writes: readonly BatchItem[]) {
  const results = await runBatch(ctx, [...writes, ...questionQueries(ctx, { questionId })]);
  return { results, question: await presentQuestion(ctx, results.slice(writes.length) as QuestionRows) };
}

/** POST /quizzes/:id/questions: appended after the quiz's live questions; no answers or pairs yet. */
export async function createQuestion(ctx: SchoolCtx, input: { quizId: string; body: CreateQuestionInput }): Promise<StaffQuestion> {
  const { body, quizId } = input;
  const t = ctx.tenantId;
  checkNewQuestion(body);
  await checkImage(ctx, "image_asset_id", body.image_asset_id);
  const id = uuidv7();
  const now = ctx.clock.now();
  const { question } = await writeAndRead(ctx, id, [
    insertWhere(
      ctx,
      quizQuestions,
      {
        id,
        tenantId: t,
        quizId,
        type: body.type,
        prompt: body.prompt ?? "",
        imageAssetId: body.image_asset_id ?? null,
        position: appendPosition(t, questionsOf(quizId)),
        pointsHundredths: body.points ?? 100,
        scoringMode: body.scoring_mode ?? null,
        correctText: [],
        createdAt: now,
        updatedAt: now,
      },
      quizLive(t, sql`${quizId}`),
    ),
    ctx.db.update(quizzes).set({ updatedAt: now }).where(liveRowWhere(quizzes, t, quizId)),
  ]);
  if (!question) throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
  return question;
}

/** The question (of a live quiz) and its live answers' pictures, as an update starts from. */
async function readForUpdate(ctx: SchoolCtx, id: string) {
  const t = ctx.tenantId;
  const [questionRows, answerRows] = await runBatch(ctx, [
    ctx.db
      .select({ quizId: quizQuestions.quizId, type: quizQuestions.type, prompt: quizQuestions.prompt, imageAssetId: quizQuestions.imageAssetId, updatedAt: quizQuestions.updatedAt })
      .from(quizQuestions)
      .where(and(liveRowWhere(quizQuestions, t, id), quizLive(t, sql`${quizQuestions.quizId}`))),
    ctx.db
      .select({ id: quizAnswers.id, imageAssetId: quizAnswers.imageAssetId })
      .from(quizAnswers)
      .where(and(inSchool(quizAnswers, t), eq(quizAnswers.questionId, id), isNull(quizAnswers.deletedAt)))
      .orderBy(asc(quizAnswers.position)),
  ]);
  type QuestionRow = { quizId: string; type: StaffQuestion["type"]; prompt: string; imageAssetId: string | null; updatedAt: number };
  const question = (questionRows as QuestionRow[])[0];
  if (!question) throw new ApiError(quizzesErrors.QUESTION_NOT_FOUND);
  const answers = new Map((answerRows as { id: string; imageAssetId: string | null }[]).map((row) => [row.id, row.imageAssetId]));
  return { question, answers };
}

/**
 * The statements of an update. All of them hold only while the question is as it was read (live,
 * its quiz live, the same `updated_at`), and the question's own UPDATE comes last and moves
 * `updated_at` forward by at least a millisecond: a concurrent edit in between makes the whole
 * batch change nothing, and the caller plans again from the new state.
 */
function updateStatements(ctx: SchoolCtx, id: string, read: { quizId: string; updatedAt: number }, plan: QuestionUpdatePlan, now: number): BatchItem[] {
  const t = ctx.tenantId;
  const stamp = Math.max(now, read.updatedAt + 1);
  const unchanged = sql`EXISTS (SELECT 1 FROM quiz_questions q WHERE q.id = ${id} AND ${liveInSchool("q", t)} AND q.updated_at = ${read.updatedAt} AND ${quizLive(t, sql`q.quiz_id`)})`;
  const statements: BatchItem[] = [];
  if (plan.answers) {
    const { kept, added } = plan.answers;
    const keepIds = JSON.stringify(kept.map((answer) => answer.id));
    statements.push(
      batchable(
        ctx,
        sql`UPDATE quiz_answers SET deleted_at = ${now}
          WHERE ${inSchool(t)} AND question_id = ${id} AND deleted_at IS NULL AND id NOT IN (SELECT value FROM json_each(${keepIds})) AND ${unchanged}`,
      ),
    );
    if (kept.length > 0) {
      statements.push(
        batchable(
          ctx,
          sql`UPDATE quiz_answers
            SET "text" = src.answer_text, is_correct = src.is_correct, position = src.position,
              image_asset_id = CASE src.image_mode WHEN 'keep' THEN quiz_answers.image_asset_id WHEN 'set' THEN src.image ELSE NULL END
            FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.text') AS answer_text, json_extract(value, '$.is_correct') AS is_correct,
                    json_extract(value, '$.position') AS position, json_extract(value, '$.imageMode') AS image_mode, json_extract(value, '$.image') AS image
                  FROM json_each(${JSON.stringify(kept)})) AS src
            WHERE quiz_answers.id = src.id AND ${inSchool("quiz_answers", t)} AND quiz_answers.question_id = ${id} AND quiz_answers.deleted_at IS NULL AND ${unchanged}`,
        ),
      );
    }
    if (added.length > 0) {
      statements.push(
        batchable(
          ctx,
          sql`INSERT INTO quiz_answers (id, tenant_id, quiz_id, question_id, "text", image_asset_id, is_correct, position, created_at)
            SELECT json_extract(value, '$.id'), ${t}, ${read.quizId}, ${id}, json_extract(value, '$.text'), json_extract(value, '$.image'),
              json_extract(value, '$.is_correct'), json_extract(value, '$.position'), ${now}
            FROM json_each(${JSON.stringify(added)}) WHERE ${unchanged}`,
        ),
      );
    }
  }
  if (plan.matches) {
    statements.push(
      batchable(ctx, sql`UPDATE quiz_matches SET deleted_at = ${now} WHERE ${inSchool(t)} AND question_id = ${id} AND deleted_at IS NULL AND ${unchanged}`),
      batchable(
        ctx,
        sql`INSERT INTO quiz_matches (id, tenant_id, quiz_id, question_id, left_text, right_text, position, created_at)
          SELECT json_extract(value, '$.id'), ${t}, ${read.quizId}, ${id}, json_extract(value, '$.left_text'), json_extract(value, '$.right_text'),
            json_extract(value, '$.position'), ${now}
          FROM json_each(${JSON.stringify(plan.matches)}) WHERE ${unchanged}`,
      ),
    );
  }
  statements.push(
    ctx.db
      .update(quizQuestions)
      .set({ ...plan.set, updatedAt: stamp })
      .where(and(liveRowWhere(quizQuestions, t, id), eq(quizQuestions.updatedAt, read.updatedAt), quizLive(t, sql`${quizQuestions.quizId}`))),
    batchable(
      ctx,
      sql`UPDATE quizzes SET updated_at = ${now}
        WHERE id = ${read.quizId} AND ${liveInSchool(t)}
          AND EXISTS (SELECT 1 FROM quiz_questions q WHERE q.id = ${id} AND ${liveInSchool("q", t)} AND q.updated_at = ${stamp})`,
    ),
  );
  return statements;
}

/** Rounds of read, plan and write before a question edited concurrently again and again gives up. */
const UPDATE_ROUNDS = 3;

/** PATCH /quiz-questions/:id: the named fields; `answers` and `matches` replace the question's lists. */
export async function updateQuestion(ctx: SchoolCtx, input: { id: string; body: UpdateQuestionInput }): Promise<StaffQuestion> {
  for (let round = 1; ; round++) {
    const read = await readForUpdate(ctx, input.id);
    const plan = planQuestionUpdate(read.question, read.answers, input.body);
    await checkImage(ctx, "image_asset_id", plan.images.question);
    await checkImage(ctx, "answers.image_asset_id", plan.images.answers);
    const writes = updateStatements(ctx, input.id, read.question, plan, ctx.clock.now());
    const { results, question } = await writeAndRead(ctx, input.id, writes);
    if (!question) throw new ApiError(quizzesErrors.QUESTION_NOT_FOUND);
    // The question's UPDATE is second to last: it changed the row unless another write came first.
    if (changedRows(results[writes.length - 2]) === 1) return question;
    if (round === UPDATE_ROUNDS) throw new Error(`question ${input.id} kept changing during ${UPDATE_ROUNDS} update rounds`);
  }
}

/** DELETE /quiz-questions/:id: soft; its answers and pairs get the same `deleted_at`. */
export async function deleteQuestion(ctx: SchoolCtx, input: { id: string }): Promise<void> {
  const t = ctx.tenantId;
  const now = ctx.clock.now();
  const deletedNow = sql`EXISTS (SELECT 1 FROM quiz_questions q WHERE q.id = ${input.id} AND ${inSchool("q", t)} AND q.deleted_at = ${now})`;
  const [deleted] = await runBatch(ctx, [
    ctx.db
      .update(quizQuestions)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(liveRowWhere(quizQuestions, t, input.id), quizLive(t, sql`${quizQuestions.quizId}`))),
    batchable(ctx, sql`UPDATE quiz_answers SET deleted_at = ${now} WHERE ${inSchool(t)} AND question_id = ${input.id} AND deleted_at IS NULL AND ${deletedNow}`),
    batchable(ctx, sql`UPDATE quiz_matches SET deleted_at = ${now} WHERE ${inSchool(t)} AND question_id = ${input.id} AND deleted_at IS NULL AND ${deletedNow}`),
    batchable(
      ctx,
      sql`UPDATE quizzes SET updated_at = ${now}
        WHERE id = (SELECT q.quiz_id FROM quiz_questions q WHERE q.id = ${input.id} AND ${inSchool("q", t)} AND q.deleted_at = ${now})
          AND ${liveInSchool(t)}`,
    ),
  ]);
  if (changedRows(deleted) === 0) throw new ApiError(quizzesErrors.QUESTION_NOT_FOUND);
}

/**
 * PATCH /quizzes/:id/reorder-questions: the exact set of the quiz's live questions in a new order.
 * The quiz's `updated_at` moves only when the reorder applies (the same exact-set condition).
 */
export async function reorderQuestions(ctx: SchoolCtx, input: { quizId: string; ids: readonly string[] }): Promise<{ reordered: number }> {
  const t = ctx.tenantId;
  await liveRow(ctx, quizzes, input.quizId, quizzesErrors.QUIZ_NOT_FOUND);
  const list = questionsOf(input.quizId);
  checkReorder(input.ids, await siblingKeys(ctx, list));
  const json = JSON.stringify(input.ids);
  const siblings = sql`${inSchool(t)} AND quiz_id = ${input.quizId} AND deleted_at IS NULL`;
  const [reordered] = await runBatch(ctx, [
    reorderStatement(ctx, list, input.ids),
    batchable(
      ctx,
      sql`UPDATE quizzes SET updated_at = ${ctx.clock.now()}
        WHERE id = ${input.quizId} AND ${liveInSchool(t)}
          AND (SELECT COUNT(*) FROM quiz_questions WHERE ${siblings}) = ${input.ids.length}
          AND (SELECT COUNT(*) FROM quiz_questions WHERE ${siblings} AND id IN (SELECT value FROM json_each(${json}))) = ${input.ids.length}`,
    ),
  ]);
  const count = changedRows(reordered);
  if (count !== input.ids.length) throw new ApiError(orderingErrors.REORDER_INCOMPLETE);
  return { reordered: count };
}
