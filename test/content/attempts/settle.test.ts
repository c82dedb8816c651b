import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runBatch } from "../../../src/core/db/batch";
import { uuidv7 } from "../../../src/core/lib/ids";
import { dispatchQueued } from "../../../src/platform/notifications/enqueue";
import * as schema from "../../../src/db/schema";
import { prepareSettle, settleStatements, type SettleOptions, type SettleTarget } from "../../../src/content/attempts/settle";
import { db, createSchool, createUser } from "../../helpers/factories";
import { schoolCtx } from "../../helpers/school-ctx";
import { giveQuizAccess, insertAttempt, insertQuiz } from "../../helpers/quizzes";
import { assignIndividualCurator } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";

/**
 * settle.ts on its own, the way grading uses it: answers are stored, then one read batch and one
 * write batch settle the attempt. (The attempts flow through HTTP is in the other files here.)
 */

async function settle(tenantId: string, target: SettleTarget, options: SettleOptions = {}) {
  const ctx = await schoolCtx(tenantId);
  const prep = prepareSettle(ctx, target);
  const plan = prep.read(await runBatch(ctx, prep.statements));
  await runBatch(ctx, await settleStatements(ctx, target, plan, options));
  await dispatchQueued(ctx);
}

async function answer(attempt: { tenantId: string; quizId: string; userId: string; id: string }, questionId: string, awarded: number | null) {
  await db()
    .insert(schema.quizAttemptAnswers)
    .values({
      id: uuidv7(),
      tenantId: attempt.tenantId,
      attemptId: attempt.id,
      quizId: attempt.quizId,
      userId: attempt.userId,
      questionId,
      payload: {},
      awardedHundredths: awarded,
      isCorrect: awarded === null ? null : awarded > 0,
      savedAt: Date.now(),
    });
}

async function attemptRow(id: string) {
  const [row] = await db().select().from(schema.quizAttempts).where(eq(schema.quizAttempts.id, id));
  return row!;
}

describe("settle", () => {
  it("pending, then graded to a pass: scores, completion, course pushes, review push", async () => {
    const school = await createSchool();
    const student = await createUser(school.id, { role: "student", firstName: "Aziza" });
    const curator = await createUser(school.id, { role: "curator" });
    await assignIndividualCurator(student.id, curator.id);
    await addPushDevice(school.id, student.id);
    await addPushDevice(school.id, curator.id);
    const quiz = await insertQuiz(school.id, { title: "Capitals", passingScore: 50, questions: [{ type: "single" }, { type: "free_text" }] });
    const tree = await giveQuizAccess(school.id, quiz.id, [student.id]);
    const id = await insertAttempt(school.id, quiz.id, student.id, { maxScoreHundredths: 200 });
    const attempt = { id, tenantId: school.id, quizId: quiz.id, userId: student.id };
    await answer(attempt, quiz.questions[0]!.id, 100);
    await answer(attempt, quiz.questions[1]!.id, null);
    const target: SettleTarget = { attemptId: id, quizId: quiz.id, userId: student.id, actorRole: "student" };

    await settle(school.id, target, { finalized: "submitted" });
    expect(await attemptRow(id)).toMatchObject({ scoreHundredths: 100, scorePctHundredths: 5000, pendingReview: true, passed: null });
    const review = (await outboxRows(school.id)).filter((row) => row.eventCode === "quiz.review_required");
    expect(review.map((row) => [row.userId, row.dedupeKey, row.body])).toEqual([
      [curator.id, `quiz.review_required:${id}:${curator.id}`, "Aziza User, «Capitals»: ответов на проверку — 1."],
    ]);

    await db()
      .update(schema.quizAttemptAnswers)
      .set({ awardedHundredths: 0, isCorrect: false })
      .where(and(eq(schema.quizAttemptAnswers.attemptId, id), eq(schema.quizAttemptAnswers.questionId, quiz.questions[1]!.id)));
    await settle(school.id, target);
    expect(await attemptRow(id)).toMatchObject({ scoreHundredths: 100, scorePctHundredths: 5000, pendingReview: false, passed: true });
    const completions = await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, student.id));
    expect(completions.map((row) => [row.blockId, row.source])).toEqual([[tree.blockIds[0], "quiz"]]);
    const [enrollment] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, student.id));
    expect(enrollment).toMatchObject({ blocksCompleted: 1, totalBlocks: 1, completedAt: expect.any(Number) });
    const rows = await outboxRows(school.id);
    expect(rows.map((row) => [row.eventCode, row.userId]).sort()).toEqual(
      [
        ["course.completed", student.id],
        ["course.student_completed", curator.id],
        ["quiz.review_required", curator.id],
      ].sort(),
    );

    // Settling again changes nothing and sends nothing more.
    await settle(school.id, target);
    expect(await outboxRows(school.id)).toHaveLength(3);
  });
});
