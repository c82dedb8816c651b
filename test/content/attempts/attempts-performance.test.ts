import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { countingD1, roundTripD1 } from "../../helpers/d1-counter";
import type { Member } from "../../helpers/users";
import { quizForStudent, save, started } from "./helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith, wrapD1 } from "../../helpers/wrapped-d1";

/**
 * What the attempt endpoints ask of D1. A save is the guard's one read and a call to the
 * attempt's journal: no D1 write. A submit scores in a constant number of statements, the same
 * for 1 question as for 100. Reads stay within 3 round trips, the guard's included.
 */

/** A request through the app over a D1 binding that records every statement's SQL and counts round trips. */
async function measured(member: Member, path: string, init: { method?: string; body?: unknown } = {}) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const counting = countingD1(trips.db);
  const sqlTexts: string[] = [];
  const db = wrapD1(counting.db, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "prepare") return (query: string) => (sqlTexts.push(query), target.prepare(query));
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) },
    envWith(db),
  );
  const body = (await response.json()) as any;
  const writes = sqlTexts.filter((text) => /^\s*(insert|update|delete|replace)\b/i.test(text));
  return { status: response.status, body, statements: counting.counts.prepare, roundTrips: trips.roundTrips(), writes };
}

async function attemptWith(questionCount: number) {
  const setup = await quizForStudent({ timeLimitSeconds: 3600, questions: Array.from({ length: questionCount }, () => ({ type: "single" as const })) });
  const id = await started(setup.student, setup.quiz.id);
  const answers = setup.quiz.questions.map((question) => ({ question_id: question.id, payload: { answer_ids: [question.answerIds[0]] }, client_seq: 1 }));
  const res = await save(setup.student, id, answers);
  expect(res.body.data.saved).toBe(questionCount);
  return { ...setup, id, answers };
}

describe("attempt endpoints and D1", () => {
  it("a save: one round trip (the guard's read), no write, whatever the number of answers", async () => {
    const { student, id, answers } = await attemptWith(100);
    for (const batch of [answers.slice(0, 1), answers]) {
      const run = await measured(student, `/t/attempts/${id}/answers`, { method: "POST", body: { answers: batch.map((item) => ({ ...item, client_seq: 2 + batch.length })) } });
      expect(run.status).toBe(200);
      expect({ roundTrips: run.roundTrips, writes: run.writes }).toEqual({ roundTrips: 1, writes: [] });
    }
  });

  it("a submit: the same statements and round trips for 100 questions as for 1", async () => {
    const one = await attemptWith(1);
    const hundred = await attemptWith(100);
    const small = await measured(one.student, `/t/attempts/${one.id}/submit`, { method: "POST" });
    const large = await measured(hundred.student, `/t/attempts/${hundred.id}/submit`, { method: "POST" });
    expect(small.body.data).toMatchObject({ score: "1.00", max_score: "1.00" });
    expect(large.body.data).toMatchObject({ score: "100.00", max_score: "100.00" });
    expect(large.body.data.saved_answers).toHaveLength(100);
    expect({ statements: large.statements, roundTrips: large.roundTrips }).toEqual({ statements: small.statements, roundTrips: small.roundTrips });
    // The guard's read, the scoring read, the write batch.
    expect(large.roundTrips).toBe(3);
  });

  it("reads: at most 3 round trips, the guard's included, in progress and submitted", async () => {
    const { student, id } = await attemptWith(20);
    const during = await measured(student, `/t/attempts/${id}`);
    expect(during.body.data.saved_answers).toHaveLength(20);
    expect(during.roundTrips).toBeLessThanOrEqual(3);
    expect(during.writes).toEqual([]);
    await measured(student, `/t/attempts/${id}/submit`, { method: "POST" });
    const after = await measured(student, `/t/attempts/${id}`);
    expect(after.body.data.status).toBe("submitted");
    expect(after.roundTrips).toBeLessThanOrEqual(3);
  });
});
