import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../../src/core/lib/clock";
import { schoolD1 } from "../../helpers/databases";
import { createUser } from "../../helpers/factories";
import { giveQuizAccess, insertQuiz } from "../../helpers/quizzes";
import { as, assignIndividualCurator, curatorWith, signedIn } from "../../helpers/users";
import { attemptRow, moveClock, quizForStudent, save, started, submit } from "../attempts/helpers";
import { analytics, attemptWithAnswers, settled } from "./analytics-helpers";

/**
 * The quiz analytics aggregates (migrations/school/0002_analytics_aggregates.sql) against a
 * plain GROUP BY over the rows after every kind of event (docs/decisions/heavy-reads.md,
 * "Analytics aggregates"): start, submit, manual grading, regrade, auto-finalize, exam-section
 * attempts, question and quiz deletion, member deletion and restore, answer and attempt deletion.
 */

afterEach(() => setClockForTests(null));

/** The three aggregates as rows (zero rows dropped: a figure that fell back to 0 keeps its row). */
async function aggregates(tenantId: string) {
  const d1 = await schoolD1(tenantId);
  const rows = async (query: string) => (await d1.prepare(query).bind(tenantId).all()).results;
  return {
    attempts: await rows(
      `SELECT quiz_id, staff, attempts, submitted FROM quiz_attempt_stats WHERE tenant_id = ? AND (attempts <> 0 OR submitted <> 0) ORDER BY 1, 2`,
    ),
    scores: await rows(
      `SELECT quiz_id, staff, score_pct_hundredths AS pct, settled, passed FROM quiz_score_stats WHERE tenant_id = ? AND (settled <> 0 OR passed <> 0) ORDER BY 1, 2, 3`,
    ),
    questions: await rows(
      `SELECT quiz_id, question_id, staff, answered, correct FROM quiz_question_stats WHERE tenant_id = ? AND (answered <> 0 OR correct <> 0) ORDER BY 1, 2, 3`,
    ),
  };
}

/** The same figures recomputed from the attempts, answers and members. */
async function recomputed(tenantId: string) {
  const d1 = await schoolD1(tenantId);
  const rows = async (query: string) => (await d1.prepare(query).bind(tenantId).all()).results;
  const counted = `FROM quiz_attempts a JOIN users u ON u.id = a.user_id AND u.tenant_id = a.tenant_id AND u.deleted_at IS NULL
    WHERE a.tenant_id = ? AND a.exam_attempt_id IS NULL`;
  const settledOnly = `AND a.status = 'submitted' AND a.pending_review = 0`;
  return {
    attempts: await rows(`SELECT a.quiz_id, a.actor_role <> 'student' AS staff, count(*) AS attempts, sum(a.status = 'submitted') AS submitted ${counted} GROUP BY 1, 2 ORDER BY 1, 2`),
    scores: await rows(
      `SELECT a.quiz_id, a.actor_role <> 'student' AS staff, coalesce(a.score_pct_hundredths, 0) AS pct, count(*) AS settled, sum(coalesce(a.passed = 1, 0)) AS passed
        ${counted} ${settledOnly} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    ),
    questions: await rows(
      `SELECT a.quiz_id, ans.question_id, a.actor_role <> 'student' AS staff, count(*) AS answered, sum(coalesce(ans.is_correct = 1, 0)) AS correct
        ${counted.replace("WHERE", "JOIN quiz_attempt_answers ans ON ans.attempt_id = a.id AND ans.tenant_id = a.tenant_id AND ans.quiz_id = a.quiz_id WHERE")} ${settledOnly}
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    ),
  };
}

async function expectExact(tenantId: string, step: string) {
  const [kept, fresh] = [await aggregates(tenantId), await recomputed(tenantId)];
  expect({ step, ...kept }).toEqual({ step, ...fresh });
}

describe("quiz analytics aggregates equal a recomputation", () => {
  it("through start, submit, grading, regrade, auto-finalize, deletions and restores", async () => {
    const { school, admin, student, quiz } = await quizForStudent({
      passingScore: 60,
      timeLimitSeconds: 60,
      questions: [{ type: "single" }, { type: "free_text", correctText: ["yes"] }, { type: "single" }],
    });
    const [single, text, other] = quiz.questions;
    const second = await signedIn(school, { role: "student" });
    await giveQuizAccess(school.id, quiz.id, [second.id]);
    const sumNonEmpty = async (step: string) => {
      await expectExact(school.id, step);
      const kept = await aggregates(school.id);
      return kept.attempts.length + kept.scores.length + kept.questions.length;
    };

    const first = await started(student, quiz.id);
    expect(await sumNonEmpty("start")).toBe(1);

    await save(student, first, [
      { question_id: single!.id, payload: { answer_ids: [single!.answerIds[0]] } },
      { question_id: text!.id, payload: { text: "maybe" } },
    ]);
    expect((await submit(student, first)).body.data).toMatchObject({ pending_review: true });
    await expectExact(school.id, "submit, pending review");

    const grade = (grades: unknown[]) => as(admin, `/t/attempts/${first}/grade`, { body: { grades } });
    expect((await grade([{ question_id: text!.id, awarded_points: "1.00" }])).body.data).toMatchObject({ pending_review: false, passed: true });
    expect(await sumNonEmpty("grading settles")).toBeGreaterThanOrEqual(4);
    expect((await grade([{ question_id: text!.id, awarded_points: "0.00" }])).body.data).toMatchObject({ pending_review: false });
    await expectExact(school.id, "regrade down");
    await grade([{ question_id: text!.id, awarded_points: "0.50" }]);
    await expectExact(school.id, "regrade partial");

    // The second student's attempt runs out of time and is finalized by the first read after it.
    const late = await started(second, quiz.id);
    await save(second, late, [{ question_id: other!.id, payload: { answer_ids: [other!.answerIds[1]] } }]);
    moveClock((await attemptRow(late))!.deadlineAt! + 16_000 - Date.now());
    expect((await as(second, `/t/attempts/${late}`)).body.data).toMatchObject({ status: "submitted", auto_finalized: true });
    setClockForTests(null);
    await expectExact(school.id, "auto-finalize");

    // Staff attempts are their own rows; an exam section's attempt is never counted.
    await attemptWithAnswers(school.id, quiz.id, admin.id, { ...settled(9000), actorRole: "admin" }, [[single!.id, true], [text!.id, false]]);
    const examLike = await createUser(school.id, { role: "student" });
    await attemptWithAnswers(school.id, quiz.id, examLike.id, { ...settled(5000), examAttemptId: "01941f29-7c00-7000-8000-00000000e000" }, [[single!.id, true]]);
    await expectExact(school.id, "staff and exam-section attempts");

    // A deleted question keeps its counts (the read shows live questions only); so does a deleted quiz.
    expect((await as(admin, `/t/quiz-questions/${other!.id}`, { method: "DELETE" })).status).toBe(204);
    await expectExact(school.id, "question deleted");

    // A deleted member's attempts leave every figure; a restore (here by the row) brings them back.
    expect((await as(admin, `/t/users/${second.id}`, { method: "DELETE" })).status).toBe(200);
    await expectExact(school.id, "member deleted");
    const d1 = await schoolD1(school.id);
    await d1.prepare("UPDATE users SET deleted_at = NULL WHERE id = ?").bind(second.id).run();
    await expectExact(school.id, "member restored");

    // Answer and attempt deletion (account erasure and cleanup delete rows), in both orders.
    await d1.prepare("DELETE FROM quiz_attempt_answers WHERE attempt_id = ? AND question_id = ?").bind(first, text!.id).run();
    await expectExact(school.id, "answer deleted");
    await d1.prepare("DELETE FROM quiz_attempts WHERE id = ?").bind(first).run();
    await expectExact(school.id, "attempt deleted before its answers");
    await d1.prepare("DELETE FROM quiz_attempt_answers WHERE attempt_id = ?").bind(first).run();
    await d1.prepare("DELETE FROM quiz_attempt_answers WHERE attempt_id = ?").bind(late).run();
    await expectExact(school.id, "answers deleted before their attempt");
    await d1.prepare("DELETE FROM quiz_attempts WHERE id = ?").bind(late).run();
    await expectExact(school.id, "attempt deleted after its answers");

    expect((await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" })).status).toBe(204);
    await expectExact(school.id, "quiz deleted");
    expect((await analytics(admin, quiz.id)).status).toBe(404);
  });

  it("the admin's answer (from the aggregates) equals a restricted curator's over the same students (from the rows)", async () => {
    const { school, admin } = await quizForStudent();
    const curator = await signedIn(school, curatorWith({ can_view_analytics: true }));
    const quiz = await insertQuiz(school.id, { passingScore: 50, questions: [{ type: "single" }, { type: "multiple" }, { type: "free_text" }] });
    const [q1, q2, q3] = quiz.questions;
    // Every student of the quiz is the curator's; the student of quizForStudent made no attempt.
    for (let i = 0; i < 12; i++) {
      const student = await createUser(school.id, { role: "student" });
      await assignIndividualCurator(student.id, curator.id);
      const pct = (i * 877) % 10_001;
      const spec = i === 11 ? { ...settled(pct, null), pendingReview: true } : i === 10 ? { status: "in_progress" as const } : settled(pct, pct >= 5000);
      await attemptWithAnswers(school.id, quiz.id, student.id, spec, [[q1!.id, i % 2 === 0], [q2!.id, i % 3 === 0], [q3!.id, i === 11 ? null : i % 4 === 0]]);
    }
    await attemptWithAnswers(school.id, quiz.id, admin.id, { ...settled(10_000), actorRole: "admin" }, [[q1!.id, true]]);
    await expectExact(school.id, "seeded");
    const fromAggregates = await analytics(admin, quiz.id);
    const fromRows = await analytics(curator, quiz.id);
    expect(fromAggregates.status).toBe(200);
    expect(fromAggregates.body.data).toMatchObject({ attempt_count: 12, submitted_count: 11 });
    expect(fromAggregates.body.data).toEqual(fromRows.body.data);
  });
});
