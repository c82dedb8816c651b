import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { AttemptJournal } from "../../../durable-objects/attempt-journal";
import { setClockForTests } from "../../../src/core/lib/clock";
import { failure } from "../../helpers/http";
import {
  answersOf,
  clockTo,
  examAttemptRow,
  examForStudent,
  GRACE_MS,
  opened,
  readExamAttempt,
  saveSection,
  sectionQuizAttempts,
  single,
  startedExam,
  submitExam,
  timerStub,
} from "./attempt-helpers";

/**
 * Hostile answer payloads on an exam's section saves (issue 26): refused with 400 before they
 * reach the section's journal, only the keys of the type kept, and an answer of a bad shape
 * already in a journal counts as unanswered, so the exam's read, submit and timer never fail.
 */

afterEach(() => setClockForTests(null));

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i += 1) value = [value];
  return value;
}

/** A 60-second exam: A answered right, B's first question right, B's second not yet (1 + 3 × ½ = 2.50 of 4.00 so far). */
async function examInProgress() {
  const setup = await examForStudent({ timeLimitSeconds: 60, passingScore: 50 });
  const id = await startedExam(setup.student, setup.exam.id);
  await opened(setup.student, id, 0);
  await opened(setup.student, id, 1);
  const [a] = setup.quizzes[0]!.questions;
  const [b1, b2] = setup.quizzes[1]!.questions;
  expect((await saveSection(setup.student, id, 0, [single(a!, true)])).status).toBe(200);
  expect((await saveSection(setup.student, id, 1, [single(b1!, true)])).status).toBe(200);
  return { ...setup, id, a: a!, b1: b1!, b2: b2!, deadline: (await examAttemptRow(id)).deadlineAt };
}

async function sendDeepPayloads(setup: Awaited<ReturnType<typeof examInProgress>>) {
  for (const levels of [1_000, 2_500, 5_000]) {
    for (const payload of [{ answer_ids: nested(levels) }, { selected_answer_id: setup.b2.answerIds[0], extra: nested(levels) }]) {
      const res = await saveSection(setup.student, setup.id, 1, [{ question_id: setup.b2.id, payload }]);
      expect(failure(res), `${levels} levels`).toEqual({ status: 400, error: "invalid_request_body" });
    }
  }
}

async function sectionAnswers(id: string) {
  const sections = await sectionQuizAttempts(id);
  const rows = (await Promise.all(sections.map((row) => answersOf(row.id)))).flat();
  return rows.map((row) => [row.questionId, row.payload, row.awardedHundredths]).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
}

describe("deeply nested payloads on a section save", () => {
  it("400 invalid_request_body at 1,000, 2,500 and 5,000 levels; the exam still reads and submits with the earlier answers", async () => {
    const setup = await examInProgress();
    await sendDeepPayloads(setup);
    expect((await readExamAttempt(setup.student, setup.id)).status).toBe(200);
    const done = await submitExam(setup.student, setup.id);
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ status: "submitted", final_score: "2.50", final_max_score: "4.00", passed: true });
    expect(await sectionAnswers(setup.id)).toEqual(
      [
        [setup.a.id, { answer_ids: [setup.a.answerIds[0]] }, 100],
        [setup.b1.id, { answer_ids: [setup.b1.answerIds[0]] }, 100],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
  });

  it("the timer's alarm finishes such an exam with the earlier answers", async () => {
    const setup = await examInProgress();
    await sendDeepPayloads(setup);
    clockTo(setup.deadline, GRACE_MS + 1000);
    expect(await runDurableObjectAlarm(timerStub(setup.id))).toBe(true);
    expect(await examAttemptRow(setup.id)).toMatchObject({ status: "submitted", autoFinalized: true, finalScoreHundredths: 250 });
    expect((await sectionAnswers(setup.id)).map((row) => row[2])).toEqual([100, 100]);
  });
});

describe("section payloads are kept with the keys of their type only", () => {
  it("unknown keys and the type's other keys are dropped; the answer scores", async () => {
    const setup = await examInProgress();
    const payload = { selected_option_id: setup.b2.answerIds[0], selected_answer_ids: [], note: { a: [1] } };
    expect((await saveSection(setup.student, setup.id, 1, [{ question_id: setup.b2.id, payload }])).status).toBe(200);
    const done = await submitExam(setup.student, setup.id);
    expect(done.body.data).toMatchObject({ final_score: "4.00" });
    expect((await sectionAnswers(setup.id)).find((row) => row[0] === setup.b2.id)).toEqual([setup.b2.id, { selected_option_id: setup.b2.answerIds[0] }, 100]);
  });

  it("an answer of a bad shape already in a section's journal counts as unanswered: the read and the submit succeed", async () => {
    const setup = await examInProgress();
    const b = (await sectionQuizAttempts(setup.id)).find((row) => row.quizId === setup.quizzes[1]!.id)!;
    const stub = env.ATTEMPT_JOURNAL.get(env.ATTEMPT_JOURNAL.idFromName(b.id)) as DurableObjectStub<AttemptJournal>;
    // Written straight into the journal, as an older version of the API kept it (2,500 levels: storage itself refuses 5,000).
    await runInDurableObject(stub, async (instance: AttemptJournal, state) => {
      const entry = { questionId: setup.b2.id, payload: { answer_ids: [setup.b2.answerIds[0]], extra: nested(2_500) }, clientSeq: null, highestSeq: null, savedAt: Date.now() };
      (instance as unknown as { entries: Map<string, unknown> }).entries.set(setup.b2.id, entry);
      await state.storage.put(`a:${setup.b2.id}`, entry);
    });
    expect((await readExamAttempt(setup.student, setup.id)).status).toBe(200);
    const done = await submitExam(setup.student, setup.id);
    expect(done.status).toBe(200);
    // Its known key still reads as an answer: kept without the extra key, and scored.
    expect(done.body.data).toMatchObject({ final_score: "4.00" });
    expect((await sectionAnswers(setup.id)).find((row) => row[0] === setup.b2.id)).toEqual([setup.b2.id, { answer_ids: [setup.b2.answerIds[0]] }, 100]);
  });
});
