import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { setClockForTests } from "../../../src/core/lib/clock";
import { createUser, db } from "../../helpers/factories";
import { giveQuizAccess, insertQuiz } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn } from "../../helpers/users";
import { grade } from "../attempts/grading-helpers";
import { save, started, submit } from "../attempts/helpers";
import { regrade, regradesOf, runChunk } from "../regrade/helpers";
import { itemAnalysis, recompute, writeAttempts, type PreparedAttempt } from "./helpers";

/**
 * The snapshot's freshness (docs/decisions/item-analysis.md, "Snapshot and freshness"): after
 * every kind of change to what the figures count (a settle, a grading, a regrade, a member's soft
 * or permanent deletion, a question edit) the next read of a quiz above the live limit answers the
 * last snapshot and asks for a recompute (stale); a write that changes nothing counted (a start, a
 * submit waiting for a review, a dry run) leaves it fresh. After the recompute the read is fresh
 * and its figures are the new ones.
 */

afterEach(() => setClockForTests(null));

const T0 = Date.parse("2026-03-02T10:00:00.000Z");

describe("GET /t/quizzes/:id/item-analysis: the snapshot goes stale exactly when the counted attempts change", () => {
  it("settle, grading, regrade, deletions and a question edit make it stale; a start, a pending submit and a dry run do not", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "free_text" }] });
    const [choice, text] = quiz.questions as [(typeof quiz.questions)[0], (typeof quiz.questions)[0]];
    const [right, wrong] = choice.answerIds as [string, string];
    const fillers: Awaited<ReturnType<typeof createUser>>[] = [];
    for (let i = 0; i < 4; i += 1) fillers.push(await createUser(school.id, { role: "student" }));
    // 205 settled attempts (above the live limit), the text left blank: 201 of the first two
    // fillers, every third right on the choice, and two wrong ones each of the other two.
    const filler = (i: number): PreparedAttempt => {
      const correct = i < 201 && i % 3 === 0;
      return {
        userId: fillers[i < 201 ? i % 2 : i < 203 ? 2 : 3]!.id,
        scoreHundredths: correct ? 100 : 0,
        maxScoreHundredths: 200,
        answers: [[choice.id, correct ? 100 : 0, { answer_ids: [correct ? right : wrong] }]],
      };
    };
    await writeAttempts(school.id, quiz.id, Array.from({ length: 205 }, (_, i) => filler(i)));
    const student = await signedIn(school, { role: "student" });
    await giveQuizAccess(school.id, quiz.id, [student.id]);

    let now = T0;
    let computedAt = T0;
    const requestedAt = async () =>
      (
        await db()
          .select({ requestedAt: schema.itemAnalysisSnapshots.requestedAt })
          .from(schema.itemAnalysisSnapshots)
          .where(and(eq(schema.itemAnalysisSnapshots.tenantId, school.id), eq(schema.itemAnalysisSnapshots.quizId, quiz.id)))
      )[0]!.requestedAt;
    const tick = () => {
      now += 1_000;
      setClockForTests({ now: () => now });
    };
    /** A read after the change: the snapshot it answers and whether it asked for a recompute. */
    const expectFresh = async () => {
      tick();
      const res = await itemAnalysis(admin, quiz.id);
      expect(res.body.data.computed_at).toBe(new Date(computedAt).toISOString());
      expect(await requestedAt()).toBeNull();
      return res.body.data;
    };
    const expectStale = async () => {
      tick();
      const before = await itemAnalysis(admin, quiz.id);
      expect(before.body.data.computed_at).toBe(new Date(computedAt).toISOString());
      expect(await requestedAt()).toBe(now);
      await recompute(school.id, quiz.id);
      computedAt = now;
      return expectFresh();
    };

    setClockForTests({ now: () => now });
    await recompute(school.id, quiz.id);
    // 67 of 205 right: 0.3268 → "0.33".
    expect(await expectFresh()).toMatchObject({ attempts: 205, items: [{ n: 205, facility: "0.33" }, { n: 205, facility: "0.00" }] });

    // A start and a submit waiting for the text's review count nothing yet.
    tick();
    const attemptId = await started(student, quiz.id);
    await expectFresh();
    tick();
    expect((await save(student, attemptId, [{ question_id: choice.id, payload: { answer_ids: [right] } }, { question_id: text.id, payload: { text: "yes" } }])).status).toBe(200);
    expect((await submit(student, attemptId)).status).toBe(200);
    await expectFresh();

    // The grading settles it: counted from now on.
    tick();
    expect((await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "1" }])).status).toBe(200);
    // 68 of 206 right (0.3301), 1 of 206 points on the text (0.0049).
    expect(await expectStale()).toMatchObject({ attempts: 206, items: [{ n: 206, facility: "0.33" }, { n: 206, facility: "0.00" }] });

    // A settle of a new attempt (submitted without the text: nothing to review).
    tick();
    const second = await started(student, quiz.id);
    expect((await save(student, second, [{ question_id: choice.id, payload: { answer_ids: [wrong] } }])).status).toBe(200);
    expect((await submit(student, second)).status).toBe(200);
    expect(await expectStale()).toMatchObject({ attempts: 207, items: [{ n: 207, facility: "0.33" }, { n: 207 }] });

    // A dry run changes nothing; the real regrade (the queue's chunks) does.
    tick();
    expect((await regrade(admin, choice.id, { mode: "accept_all" })).status).toBe(200);
    await expectFresh();
    tick();
    expect((await regrade(admin, choice.id, { mode: "accept_all", dry_run: false })).status).toBe(200);
    const [run] = await regradesOf(school.id);
    for (let chunk = 0; chunk < 5 && (await regradesOf(school.id))[0]!.status !== "done"; chunk += 1) await runChunk(school.id, run!.id, choice.id);
    expect((await regradesOf(school.id))[0]!.status).toBe("done");
    expect(await expectStale()).toMatchObject({ attempts: 207, items: [{ n: 207, facility: "1.00" }, { n: 207 }] });

    // A question edit.
    tick();
    expect((await as(admin, `/t/quiz-questions/${text.id}`, { method: "PATCH", body: { prompt: "Edited" } })).status).toBe(200);
    await expectStale();

    // A member's soft deletion takes their attempts out, and so does another's permanent deletion.
    tick();
    expect((await as(admin, `/t/users/${fillers[2]!.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await expectStale()).toMatchObject({ attempts: 205, items: [{ n: 205 }, { n: 205 }] });
    tick();
    expect((await as(admin, `/t/users/${fillers[3]!.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    expect(await expectStale()).toMatchObject({ attempts: 203, items: [{ n: 203 }, { n: 203 }] });
    // Purging the soft-deleted member removes nothing counted; the read is stale once (the deleted members changed).
    tick();
    expect((await as(admin, `/t/users/${fillers[2]!.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    expect(await expectStale()).toMatchObject({ attempts: 203 });
    await expectFresh();
  });
});
