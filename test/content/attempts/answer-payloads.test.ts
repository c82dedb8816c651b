import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AttemptJournal } from "../../../durable-objects/attempt-journal";
import { uuidv7 } from "../../../src/core/lib/ids";
import { failure } from "../../helpers/http";
import { answerRows, attemptRow, moveClock, quizForStudent, read, save, started, submit, tokenFor } from "./helpers";
import { fixtureD1 } from "../../helpers/databases";

/**
 * Hostile answer payloads (issue 26): nothing a client sends may make reading, submitting or
 * finalizing an attempt fail. A payload is checked for its question's type with a depth and size
 * limit, only the keys of its type are kept, and a stored payload of a bad shape counts as
 * unanswered instead of failing the read or the finalize.
 */

/** `[[[…[1]…]]]`, `levels` arrays deep. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i += 1) value = [value];
  return value;
}

const GRACE_MS = 15_000;

function journalStub(id: string) {
  return env.ATTEMPT_JOURNAL.get(env.ATTEMPT_JOURNAL.idFromName(id)) as DurableObjectStub<AttemptJournal>;
}

async function twoQuestions(spec: { timeLimitSeconds?: number } = {}) {
  const setup = await quizForStudent({ ...spec, questions: [{ type: "single" }, { type: "free_text", correctText: ["yes"] }] });
  const [single, text] = setup.quiz.questions;
  const id = await started(setup.student, setup.quiz.id);
  // The earlier answer every test expects to survive: the right one, 1 point of 2.
  expect((await save(setup.student, id, [{ question_id: single!.id, payload: { answer_ids: [single!.answerIds[0]] } }])).status).toBe(200);
  return { ...setup, id, single: single!, text: text! };
}

/** Deep values under an unknown key, as a known key's value, and as a pair. */
function deepPayloads(levels: number, text: { id: string }, single: { id: string }) {
  return [
    { question_id: text.id, payload: { text: "yes", extra: nested(levels) } },
    { question_id: text.id, payload: { text: nested(levels) } },
    { question_id: single.id, payload: { answer_ids: nested(levels) } },
    { question_id: single.id, payload: { selected_answer_id: "x", deep: { a: nested(levels) } } },
  ];
}

describe("deeply nested answer payloads", () => {
  it("400 invalid_request_body at 1,000, 2,500 and 5,000 levels; the attempt still reads and submits with the earlier answer", async () => {
    const { student, id, single, text } = await twoQuestions();
    for (const levels of [1_000, 2_500, 5_000]) {
      for (const item of deepPayloads(levels, text, single)) {
        expect(failure(await save(student, id, [item])), `${levels} levels`).toEqual({ status: 400, error: "invalid_request_body" });
      }
    }
    const inProgress = await read(student, id);
    expect(inProgress.status).toBe(200);
    expect(inProgress.body.data.saved_answers).toEqual([{ question_id: single.id, payload: { answer_ids: [single.answerIds[0]] }, awarded_points: "0.00", is_correct: false }]);
    const done = await submit(student, id);
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ status: "submitted", score: "1.00", max_score: "2.00" });
    expect(done.body.data.saved_answers).toEqual([
      { question_id: single.id, payload: { answer_ids: [single.answerIds[0]] }, awarded_points: "1.00", is_correct: true, feedback: null },
    ]);
    expect((await read(student, id)).status).toBe(200);
  });

  it("a timed attempt that was sent deep payloads is finalized by its alarm with the earlier answer", async () => {
    const { student, id, single, text } = await twoQuestions({ timeLimitSeconds: 60 });
    for (const levels of [1_000, 5_000]) {
      for (const item of deepPayloads(levels, text, single)) expect(failure(await save(student, id, [item]))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    const deadline = (await attemptRow(id))!.deadlineAt!;
    moveClock(deadline + GRACE_MS + 1000 - Date.now());
    try {
      expect(await runDurableObjectAlarm(journalStub(id))).toBe(true);
    } finally {
      moveClock(0);
    }
    expect(await attemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: true, scoreHundredths: 100, maxScoreHundredths: 200 });
    expect((await answerRows(id)).map((row) => [row.questionId, row.payload, row.awardedHundredths])).toEqual([
      [single.id, { answer_ids: [single.answerIds[0]] }, 100],
    ]);
  });
});

describe("payload shapes per question type", () => {
  it("every key of the contract saves and scores; unknown keys (and the type's other keys) are dropped", async () => {
    const variants: [label: string, type: "single" | "multiple", payload: (ids: string[]) => Record<string, unknown>, kept: (ids: string[]) => Record<string, unknown>][] = [
      ["single answer_ids", "single", (ids) => ({ answer_ids: [ids[0], ids[1]], note: "x" }), (ids) => ({ answer_ids: [ids[0], ids[1]] })],
      ["single selected_answer_id", "single", (ids) => ({ selected_answer_id: ids[0], selected_option_id: ids[1], meta: { a: 1 } }), (ids) => ({ selected_answer_id: ids[0] })],
      ["single selected_option_id", "single", (ids) => ({ selected_option_id: ids[0], extra: [1, 2] }), (ids) => ({ selected_option_id: ids[0] })],
      ["multiple answer_ids", "multiple", (ids) => ({ answer_ids: [ids[0], ids[1]], text: "no" }), (ids) => ({ answer_ids: [ids[0], ids[1]] })],
      ["multiple selected_answer_ids", "multiple", (ids) => ({ selected_answer_ids: [ids[1], ids[0]], selected_option_ids: [] }), (ids) => ({ selected_answer_ids: [ids[1], ids[0]] })],
      ["multiple selected_option_ids", "multiple", (ids) => ({ selected_option_ids: [ids[0], ids[1]], x: null }), (ids) => ({ selected_option_ids: [ids[0], ids[1]] })],
    ];
    for (const [label, type, payload, kept] of variants) {
      const { student, quiz } = await quizForStudent({
        questions: [type === "single" ? { type } : { type, answers: [{ isCorrect: true }, { isCorrect: true }, { isCorrect: false }] }],
      });
      const question = quiz.questions[0]!;
      const id = await started(student, quiz.id);
      expect((await save(student, id, [{ question_id: question.id, payload: payload(question.answerIds) }])).status, label).toBe(200);
      expect((await read(student, id)).body.data.saved_answers, label).toEqual([{ question_id: question.id, payload: kept(question.answerIds), awarded_points: "0.00", is_correct: false }]);
      const done = (await submit(student, id)).body.data;
      expect([done.score, done.saved_answers], label).toEqual(["1.00", [{ question_id: question.id, payload: kept(question.answerIds), awarded_points: "1.00", is_correct: true, feedback: null }]]);
    }
  });

  it("free text and matching: only text, pairs and each pair's left_id and right_id are kept; both score", async () => {
    const { school, student, quiz } = await quizForStudent({ questions: [{ type: "free_text", correctText: ["Paris"] }, { type: "matching" }] });
    const [text, matching] = quiz.questions;
    const id = await started(student, quiz.id);
    const [m0, m1] = matching!.matchIds;
    const t0 = await tokenFor(school.id, matching!.id, m0!);
    const t1 = await tokenFor(school.id, matching!.id, m1!);
    const res = await save(student, id, [
      { question_id: text!.id, payload: { text: "  paris ", answer_ids: [], lang: "fr" } },
      { question_id: matching!.id, payload: { pairs: [{ left_id: m0, right_id: t0, note: "a" }, { left_id: m1, right_id: t1, extra: { b: 2 } }], score: 100 } },
    ]);
    expect(res.status).toBe(200);
    expect((await read(student, id)).body.data.saved_answers.map((answer: { payload: unknown }) => answer.payload)).toEqual([
      { text: "  paris " },
      { pairs: [{ left_id: m0, right_id: t0 }, { left_id: m1, right_id: t1 }] },
    ]);
    const done = (await submit(student, id)).body.data;
    expect(done.score).toBe("2.00");
    expect(done.saved_answers.map((answer: { payload: unknown }) => answer.payload)).toEqual([
      { text: "  paris " },
      { pairs: [{ left_id: m0, right_id: m0 }, { left_id: m1, right_id: m1 }] },
    ]);
  });

  it("limits: free text up to 10,000 characters, 8 levels of nesting, 20,000 characters of JSON (a 5 MB payload too); beyond them 400 and nothing is saved", async () => {
    const { student, id, single, text } = await twoQuestions();
    const refused = [
      { question_id: text.id, payload: { text: "y".repeat(10_001) } },
      { question_id: text.id, payload: { text: "yes", extra: nested(8) } },
      { question_id: text.id, payload: { text: "yes", extra: "z".repeat(20_000) } },
      { question_id: text.id, payload: { text: "yes", ...Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`k${i}`, i])) } },
      { question_id: single.id, payload: { answer_ids: Array.from({ length: 201 }, () => single.answerIds[0]) } },
      { question_id: text.id, payload: { text: "yes", blob: "b".repeat(5_000_000) } },
    ];
    for (const item of refused) expect(failure(await save(student, id, [item]))).toEqual({ status: 400, error: "invalid_request_body" });
    const accepted = await save(student, id, [{ question_id: text.id, payload: { text: "y".repeat(10_000), extra: nested(7) } }]);
    expect(accepted.status).toBe(200);
    expect((await read(student, id)).body.data.saved_answers.map((answer: { payload: unknown }) => answer.payload)).toEqual([
      { answer_ids: [single.answerIds[0]] },
      { text: "y".repeat(10_000) },
    ]);
  });
});

describe("stored payloads of a bad shape", () => {
  it("an answer in the journal that is not an answer of its type counts as unanswered: the read, the submit and the alarm succeed", async () => {
    for (const finish of ["submit", "alarm"] as const) {
      const { student, id, single, text } = await twoQuestions({ timeLimitSeconds: 60 });
      const stub = journalStub(id);
      // Written straight into the journal, as an older version of the API kept them.
      await runInDurableObject(stub, async (instance: AttemptJournal, state) => {
        // 2,500 levels: what the API used to take (storage itself refuses 5,000), and what its RPC could no longer return.
        const entry = { questionId: text.id, payload: { text: nested(2_500) }, clientSeq: null, highestSeq: null, savedAt: Date.now() };
        (instance as unknown as { entries: Map<string, unknown> }).entries.set(text.id, entry);
        await state.storage.put(`a:${text.id}`, entry);
      });
      const inProgress = await read(student, id);
      expect(inProgress.status, finish).toBe(200);
      expect(inProgress.body.data.saved_answers.map((answer: { question_id: string }) => answer.question_id), finish).toEqual([single.id]);
      if (finish === "submit") {
        const done = await submit(student, id);
        expect(done.status).toBe(200);
        expect(done.body.data).toMatchObject({ status: "submitted", score: "1.00", max_score: "2.00", pending_review: false });
      } else {
        const deadline = (await attemptRow(id))!.deadlineAt!;
        moveClock(deadline + GRACE_MS + 1000 - Date.now());
        try {
          expect(await runDurableObjectAlarm(stub)).toBe(true);
        } finally {
          moveClock(0);
        }
        expect(await attemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: true, scoreHundredths: 100 });
      }
      expect((await answerRows(id)).map((row) => row.questionId), finish).toEqual([single.id]);
    }
  });

  it("an answer row in D1 whose payload is not a JSON object reads as {}", async () => {
    const { student, id, single, text, quiz, school } = await twoQuestions();
    expect((await submit(student, id)).status).toBe(200);
    // Raw SQL: the schema's JSON column would store the text as a JSON string.
    const insert = fixtureD1.prepare(
      "INSERT INTO quiz_attempt_answers (id, tenant_id, attempt_id, quiz_id, user_id, question_id, payload, awarded_hundredths, is_correct, saved_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, ?)",
    );
    await insert.bind(uuidv7(), school.id, id, quiz.id, student.id, text.id, "{not json", Date.now()).run();
    const res = await read(student, id);
    expect(res.status).toBe(200);
    expect(res.body.data.saved_answers.map((answer: { question_id: string; payload: unknown }) => [answer.question_id, answer.payload])).toEqual([
      [single.id, { answer_ids: [single.answerIds[0]] }],
      [text.id, {}],
    ]);
  });
});
