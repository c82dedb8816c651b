import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AttemptJournal } from "../../../durable-objects/attempt-journal";
import type { JournalEntry } from "../../../src/content/attempts/journal-state";
import { uuidv7 } from "../../../src/core/lib/ids";
import { failure } from "../../helpers/http";
import { as } from "../../helpers/users";
import { type QuestionSpec } from "../../helpers/quizzes";
import { answerRows, attemptRow, quizForStudent, read, save, start, started, submit } from "./helpers";

/**
 * Random forms (05 section 2): the draw at start, stored with the attempt; every read, the journal
 * after a restart, the saves, the scoring and the maximum follow the drawn questions only.
 */

const fourAnswers = { type: "single" as const, answers: [{ text: "A", isCorrect: true }, { text: "B" }, { text: "C" }, { text: "D" }] };

/** Twenty single-choice questions worth 1.00 … 20.00 points, so a maximum names the questions drawn. */
function twentyQuestions(): QuestionSpec[] {
  return Array.from({ length: 20 }, (_, i) => ({ ...fourAnswers, pointsHundredths: (i + 1) * 100 }));
}

interface ShownQuestion {
  id: string;
  position: number;
  points: string;
  answers: { id: string; position: number }[];
}

const ids = (questions: readonly { id: string }[]) => questions.map((question) => question.id);

function journalStub(attemptId: string) {
  return env.ATTEMPT_JOURNAL.get(env.ATTEMPT_JOURNAL.idFromName(attemptId)) as DurableObjectStub<AttemptJournal>;
}

/** The object as a fresh instance finds it: nothing in memory, everything reloaded from its storage. */
async function restartJournal(attemptId: string): Promise<void> {
  await runInDurableObject(journalStub(attemptId), async (instance: AttemptJournal, state) => {
    const inner = instance as unknown as { meta: unknown; entries: Map<string, JournalEntry> };
    inner.meta = null;
    inner.entries.clear();
    inner.meta = (await state.storage.get("meta")) ?? null;
    for (const entry of (await state.storage.list<JournalEntry>({ prefix: "a:" })).values()) inner.entries.set(entry.questionId, entry);
  });
}

/** The object lost entirely (storage and memory): the next call that finds the attempt row starts it again. */
async function loseJournal(attemptId: string): Promise<void> {
  await runInDurableObject(journalStub(attemptId), async (instance: AttemptJournal, state) => {
    const inner = instance as unknown as { meta: unknown; entries: Map<string, JournalEntry> };
    inner.meta = null;
    inner.entries.clear();
    await state.storage.deleteAlarm();
    await state.storage.deleteAll();
  });
}

describe("random forms: the draw at start", () => {
  it("draws questions_per_attempt questions, shows exactly them in the drawn order with shuffled answers, the same on every read; max_score is theirs", async () => {
    const { student, quiz } = await quizForStudent({ questionsPerAttempt: 5, shuffleQuestions: true, shuffleAnswers: true, questions: twentyQuestions() });
    const points = new Map(quiz.questions.map((question, i) => [question.id, i + 1]));
    const answersOf = new Map(quiz.questions.map((question) => [question.id, question.answerIds]));
    const id = await started(student, quiz.id);

    const first = await read(student, id);
    expect(first.status).toBe(200);
    const shown = first.body.data.questions as ShownQuestion[];
    expect(shown).toHaveLength(5);
    expect(new Set(ids(shown)).size).toBe(5);
    for (const question of shown) {
      expect(points.has(question.id)).toBe(true);
      expect(question.points).toBe(`${points.get(question.id)}.00`);
      expect([...ids(question.answers)].sort()).toEqual([...answersOf.get(question.id)!].sort());
      expect(question.answers.map((answer) => answer.position)).toEqual([0, 1, 2, 3]);
      // The student view: no verdicts.
      expect(Object.keys(question.answers[0]!).sort()).toEqual(["id", "image_url", "position", "text"]);
    }
    expect(shown.map((question) => question.position)).toEqual([0, 1, 2, 3, 4]);
    const max = shown.reduce((sum, question) => sum + points.get(question.id)!, 0);
    expect(first.body.data.max_score).toBe(`${max}.00`);

    const row = await attemptRow(id);
    expect(row).toMatchObject({ formQuestionIds: ids(shown), formShuffleAnswers: true });
    expect(row!.formSeed).toMatch(/^[0-9a-f]{32}$/);

    for (let i = 0; i < 3; i += 1) expect((await read(student, id)).body.data.questions).toEqual(shown);
    // A start while the attempt is in progress gives the same attempt, and its form is unchanged.
    expect((await start(student, quiz.id)).status).toBe(200);
    expect((await read(student, id)).body.data.questions).toEqual(shown);
  });

  it("keeps the form across a restart of the attempt's journal and across a journal lost and started again from D1", async () => {
    const { student, quiz } = await quizForStudent({ questionsPerAttempt: 4, shuffleQuestions: true, shuffleAnswers: true, questions: twentyQuestions() });
    const id = await started(student, quiz.id);
    const shown = (await read(student, id)).body.data.questions as ShownQuestion[];
    const undrawn = quiz.questions.find((question) => !ids(shown).includes(question.id))!;
    expect((await save(student, id, [{ question_id: shown[0]!.id, payload: { answer_ids: [shown[0]!.answers[0]!.id] } }])).status).toBe(200);

    await restartJournal(id);
    const afterRestart = await read(student, id);
    expect(afterRestart.body.data.questions).toEqual(shown);
    expect(afterRestart.body.data.saved_answers.map((answer: { question_id: string }) => answer.question_id)).toEqual([shown[0]!.id]);
    expect(failure(await save(student, id, [{ question_id: undrawn.id, payload: { answer_ids: [undrawn.answerIds[0]] } }]))).toEqual({ status: 400, error: "question_not_in_form" });

    await loseJournal(id);
    const rebuilt = await read(student, id);
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body.data.questions).toEqual(shown);
    expect(rebuilt.body.data.max_score).toBe(afterRestart.body.data.max_score);
    // The journal started again from the attempt row knows the form: outside it is still refused.
    expect(failure(await save(student, id, [{ question_id: undrawn.id, payload: { answer_ids: [undrawn.answerIds[0]] } }]))).toEqual({ status: 400, error: "question_not_in_form" });
    expect((await save(student, id, [{ question_id: shown[1]!.id, payload: { answer_ids: [shown[1]!.answers[0]!.id] } }])).status).toBe(200);
  });

  it("gives students distinct forms: 30 attempts of 5 of 20 questions are not all the same", async () => {
    const { student, quiz } = await quizForStudent({ questionsPerAttempt: 5, shuffleQuestions: true, questions: twentyQuestions() });
    const forms = new Set<string>();
    const seen = new Set<string>();
    for (let i = 0; i < 30; i += 1) {
      const id = await started(student, quiz.id);
      const drawn = (await attemptRow(id))!.formQuestionIds!;
      expect(drawn).toHaveLength(5);
      forms.add(JSON.stringify(drawn));
      for (const questionId of drawn) seen.add(questionId);
      expect((await submit(student, id)).status).toBe(200);
    }
    expect(forms.size).toBeGreaterThan(1);
    // Uniform over the 20: far more than one form's 5 questions come up.
    expect(seen.size).toBeGreaterThan(5);
  });

  it("without shuffle_questions the drawn questions keep the quiz's order", async () => {
    const { student, quiz } = await quizForStudent({ questionsPerAttempt: 6, questions: twentyQuestions() });
    const order = ids(quiz.questions);
    for (let i = 0; i < 3; i += 1) {
      const id = await started(student, quiz.id);
      const shown = (await read(student, id)).body.data.questions as ShownQuestion[];
      expect(shown).toHaveLength(6);
      const positions = ids(shown).map((questionId) => order.indexOf(questionId));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      // Answers keep their order too (shuffle_answers is off).
      for (const question of shown) expect(ids(question.answers)).toEqual(quiz.questions[order.indexOf(question.id)]!.answerIds);
      expect((await submit(student, id)).status).toBe(200);
    }
  });

  it("saves outside the form are 400 question_not_in_form, outside the quiz 400 question_not_in_quiz; the score and answers cover the drawn questions only", async () => {
    const { admin, student, quiz } = await quizForStudent({ questionsPerAttempt: 3, shuffleQuestions: true, passingScore: 100, questions: twentyQuestions() });
    const id = await started(student, quiz.id);
    const shown = (await read(student, id)).body.data.questions as ShownQuestion[];
    const undrawn = quiz.questions.filter((question) => !ids(shown).includes(question.id));
    expect(undrawn).toHaveLength(17);
    expect(failure(await save(student, id, [{ question_id: undrawn[0]!.id, payload: { answer_ids: [undrawn[0]!.answerIds[0]] } }]))).toEqual({
      status: 400,
      error: "question_not_in_form",
    });
    expect(failure(await save(student, id, [{ question_id: uuidv7(), payload: { answer_ids: [] } }]))).toEqual({ status: 400, error: "question_not_in_quiz" });
    const right = shown.map((question) => ({ question_id: question.id, payload: { answer_ids: [quiz.questions.find((q) => q.id === question.id)!.answerIds[0]] } }));
    expect((await save(student, id, right)).body.data).toMatchObject({ saved: 3, ignored: 0 });
    const done = await submit(student, id);
    const max = shown.reduce((sum, question) => sum + Number(question.points), 0).toFixed(2);
    expect(done.body.data).toMatchObject({ status: "submitted", score: max, max_score: max, score_pct: "100.00", passed: true });
    expect((await answerRows(id)).map((row) => row.questionId).sort()).toEqual(ids(shown).sort());
    // The submitted attempt still reads with its form.
    expect((await read(student, id)).body.data.questions).toEqual(shown);
    // A grade may name the form's questions only: the others are not questions of this attempt.
    const grade = (questionId: string) => as(admin, `/t/attempts/${id}/grade`, { method: "POST", body: { grades: [{ question_id: questionId, awarded_points: "0.00" }] } });
    expect(failure(await grade(undrawn[0]!.id))).toEqual({ status: 400, error: "question_not_in_quiz" });
    expect((await grade(shown[0]!.id)).status).toBe(200);
  });

  it("draws every live question when fewer are live than questions_per_attempt", async () => {
    const { student, quiz } = await quizForStudent({ questionsPerAttempt: 5, shuffleQuestions: true, questions: [fourAnswers, fourAnswers, { ...fourAnswers, deleted: true }, fourAnswers] });
    const id = await started(student, quiz.id);
    const shown = (await read(student, id)).body.data.questions as ShownQuestion[];
    expect([...ids(shown)].sort()).toEqual([quiz.questions[0]!.id, quiz.questions[1]!.id, quiz.questions[3]!.id].sort());
    expect((await read(student, id)).body.data.max_score).toBe("3.00");
  });

  it("a quiz without form settings keeps its behaviour: no form stored, no questions on the attempt", async () => {
    const { student, quiz } = await quizForStudent({ questions: [{ type: "single" }, { type: "single" }] });
    const id = await started(student, quiz.id);
    expect(await attemptRow(id)).toMatchObject({ formSeed: null, formQuestionIds: null, formShuffleAnswers: false });
    const res = await read(student, id);
    expect(res.body.data.questions).toBeUndefined();
    expect(res.body.data.max_score).toBe("2.00");
  });

  it("shuffle_answers alone stores a form of every question in quiz order, answers in the seed's order", async () => {
    const { student, quiz } = await quizForStudent({ shuffleAnswers: true, questions: [fourAnswers, fourAnswers, fourAnswers] });
    const id = await started(student, quiz.id);
    const shown = (await read(student, id)).body.data.questions as ShownQuestion[];
    expect(ids(shown)).toEqual(ids(quiz.questions));
    for (const [i, question] of shown.entries()) expect([...ids(question.answers)].sort()).toEqual([...quiz.questions[i]!.answerIds].sort());
    expect((await read(student, id)).body.data.questions).toEqual(shown);
  });
});
