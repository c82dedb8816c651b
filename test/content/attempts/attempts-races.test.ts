import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertAttempt } from "../../helpers/quizzes";
import { assignIndividualCurator, signedIn } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { answerRows, attemptRow, quizForStudent, save, started } from "./helpers";
import { schoolD1 } from "../../helpers/databases";

/**
 * Races with real concurrent requests. The barrier holds each request's D1 batch until all of
 * them have reached it, so every request has read before any writes: the worst interleaving,
 * every run.
 */

describe("concurrent submits", () => {
  it("20 submits of one attempt: one 200, nineteen 409, one set of answers, one scoring", async () => {
    const { school, student, quiz } = await quizForStudent({ questions: [{ type: "single" }, { type: "free_text" }] });
    const curator = await signedIn(school, { role: "curator" });
    await assignIndividualCurator(student.id, curator.id);
    await addPushDevice(school.id, curator.id);
    const id = await started(student, quiz.id);
    const [single, text] = quiz.questions;
    await save(student, id, [
      { question_id: single!.id, payload: { answer_ids: [single!.answerIds[0]] } },
      { question_id: text!.id, payload: { text: "to review" } },
    ]);

    // Held: the read every submit makes before closing the journal.
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /default_scoring_mode\s+FROM quiz_attempts/, parties: 20 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => requestWithD1(barrier.db, `/t/attempts/${id}/submit`, { token: student.token, tenant: student.subdomain })),
    );
    expect(barrier.stats.releases).toEqual([20]);
    const statuses = responses.map((res) => res.status).sort();
    expect(statuses).toEqual([200, ...Array<number>(19).fill(409)]);
    for (const res of responses.filter((r) => r.status === 409)) expect(failure(res)).toEqual({ status: 409, error: "attempt_already_submitted" });

    expect(await answerRows(id)).toHaveLength(2);
    expect(await attemptRow(id)).toMatchObject({ status: "submitted", scoreHundredths: 100, pendingReview: true });
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "quiz.review_required").map((row) => row.userId)).toEqual([curator.id]);
  });
});

describe("concurrent starts", () => {
  it("10 starts with one attempt left: one 201, nine 200 with the same attempt; once it is used, ten 409 max_attempts_reached", async () => {
    const { school, student, quiz } = await quizForStudent({ maxAttempts: 3, questions: [{ type: "single" }] });
    await insertAttempt(school.id, quiz.id, student.id);
    await insertAttempt(school.id, quiz.id, student.id);
    const attemptsOf = () => db().select().from(schema.quizAttempts).where(and(eq(schema.quizAttempts.quizId, quiz.id), eq(schema.quizAttempts.userId, student.id)));

    const race = async () => {
      const barrier = barrierD1(await schoolD1(student.tenantId), { held: /^insert into "quiz_attempts"/i, parties: 10 });
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => requestWithD1(barrier.db, "/t/attempts", { token: student.token, tenant: student.subdomain, body: { quiz_id: quiz.id } })),
      );
      return { responses, releases: barrier.stats.releases };
    };

    const first = await race();
    expect(first.releases).toEqual([10]);
    expect(first.responses.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(first.responses.map((res) => res.body.data.id)).size).toBe(1);
    expect(await attemptsOf()).toHaveLength(3);

    const id = first.responses[0]!.body.data.id as string;
    await requestWithD1(env.DB, `/t/attempts/${id}/submit`, { token: student.token, tenant: student.subdomain });
    const second = await race();
    for (const res of second.responses) expect(failure(res)).toEqual({ status: 409, error: "max_attempts_reached" });
    expect(await attemptsOf()).toHaveLength(3);
  });
});
