import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { countingD1, roundTripD1 } from "../../helpers/d1-counter";
import type { Member } from "../../helpers/users";
import { examForStudent, opened, saveSection, single, startedExam } from "./attempt-helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith, wrapD1 } from "../../helpers/wrapped-d1";

/**
 * What the exam attempt endpoints ask of D1. A section save is the guard's read, one lookup (which
 * quiz attempt the section's answers go to) and a call to that attempt's journal: no D1 write. A
 * submit finishes in a number of statements that does not grow with the questions. Reads stay
 * within 3 round trips, the guard's included.
 */

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

/** A two-section exam with `questions` single-choice questions per section, both opened and answered. */
async function examWith(questions: number) {
  const quiz = { questions: Array.from({ length: questions }, () => ({ type: "single" as const })) };
  const setup = await examForStudent({ timeLimitSeconds: 3600 }, [
    { quiz, weight: 1 },
    { quiz, weight: 2 },
  ]);
  const id = await startedExam(setup.student, setup.exam.id);
  for (const [index, section] of setup.quizzes.entries()) {
    await opened(setup.student, id, index);
    const res = await saveSection(setup.student, id, index, section.questions.map((question) => single(question, true, 1)));
    expect(res.body.data.saved).toBe(questions);
  }
  return { ...setup, id };
}

describe("exam attempt endpoints and D1", () => {
  it("a section save: two round trips (the guard's read and the lookup), no write, whatever the number of answers", async () => {
    const { student, id, quizzes } = await examWith(50);
    for (const count of [1, 50]) {
      const answers = quizzes[1]!.questions.slice(0, count).map((question) => single(question, false, 2 + count));
      const run = await measured(student, `/t/exam-attempts/${id}/sections/1/answers`, { method: "POST", body: { answers } });
      expect(run.body.data).toMatchObject({ saved: count, section_index: 1 });
      expect({ roundTrips: run.roundTrips, writes: run.writes }).toEqual({ roundTrips: 2, writes: [] });
    }
  });

  it("a submit: the same statements and round trips for 50 questions a section as for 1", async () => {
    const one = await examWith(1);
    const fifty = await examWith(50);
    const small = await measured(one.student, `/t/exam-attempts/${one.id}/submit`, { method: "POST" });
    const large = await measured(fifty.student, `/t/exam-attempts/${fifty.id}/submit`, { method: "POST" });
    expect(small.body.data).toMatchObject({ final_score: "3.00", final_max_score: "3.00" });
    expect(large.body.data).toMatchObject({ final_score: "3.00", final_max_score: "3.00" });
    expect({ statements: large.statements, roundTrips: large.roundTrips }).toEqual({ statements: small.statements, roundTrips: small.roundTrips });
    // The guard's read, the submit's read, the finish's read, the sections' scoring read, their write, the final write.
    expect(large.roundTrips).toBe(6);
  });

  it("reads: at most 3 round trips, the guard's included, in progress and finished; no write", async () => {
    const { student, id, exam } = await examWith(20);
    for (const path of [`/t/exam-attempts/${id}`, `/t/exam-attempts/active?exam_id=${exam.id}`]) {
      const during = await measured(student, path);
      expect(during.body.data.status).toBe("in_progress");
      expect(during.roundTrips).toBeLessThanOrEqual(3);
      expect(during.writes).toEqual([]);
    }
    await measured(student, `/t/exam-attempts/${id}/submit`, { method: "POST" });
    const after = await measured(student, `/t/exam-attempts/${id}`);
    expect(after.body.data.status).toBe("submitted");
    expect(after.roundTrips).toBeLessThanOrEqual(3);
    expect(after.writes).toEqual([]);
  });

  it("go: the guard's read, one read and one write batch; no statement per question", async () => {
    const one = await examForStudent();
    const many = await examForStudent({}, [{ quiz: { questions: Array.from({ length: 40 }, () => ({ type: "single" as const })) } }]);
    const first = await measured(one.student, `/t/exam-attempts/${await startedExam(one.student, one.exam.id)}/go`, { method: "POST", body: { section_index: 0 } });
    const second = await measured(many.student, `/t/exam-attempts/${await startedExam(many.student, many.exam.id)}/go`, { method: "POST", body: { section_index: 0 } });
    expect(second.body.data.quiz.questions).toHaveLength(40);
    expect({ statements: second.statements, roundTrips: second.roundTrips }).toEqual({ statements: first.statements, roundTrips: first.roundTrips });
    expect(second.roundTrips).toBe(3);
  });
});
