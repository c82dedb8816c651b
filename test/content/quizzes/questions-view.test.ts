import { env } from "cloudflare:test";
import { and, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openMatchToken } from "../../../src/content/quizzes/match-tokens";
import { loadQuestions, type StudentQuestion } from "../../../src/content/quizzes/question-present";
import type { Env } from "../../../src/core/env";
import type { Actor, SchoolCtx } from "../../../src/core/http/context";
import * as schema from "../../../src/db/schema";
import { MEDIA_LINK as LINK } from "../../helpers/courses";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { roundTripD1 } from "../../helpers/d1-counter";
import { createSchool, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { schoolWithAdmin } from "../../helpers/users";
import { storedImage } from "../../media/helpers";
import { schoolD1 } from "../../helpers/databases";
import { schoolCtx } from "../../helpers/school-ctx";
import { envWith } from "../../helpers/wrapped-d1";

/** A school context as the guard builds one, for a student; `bindings` may hold a wrapped shard (`envWith`). */
async function ctxFor(tenantId: string, bindings?: Env): Promise<SchoolCtx> {
  const ctx = await schoolCtx<Actor>(tenantId, { env: bindings, actor: "member" });
  return { ...ctx, actor: { ...ctx.actor, userId: "0190a6c2-0000-7000-8000-000000000001", role: "student" } };
}

async function oneOfEach(tenantId: string) {
  const picture = await storedImage(tenantId);
  const quiz = await insertQuiz(tenantId, {
    questions: [
      { type: "single", imageAssetId: picture, answers: [{ text: "A", isCorrect: true, imageAssetId: picture }, { text: "B" }, { text: "gone", deleted: true }] },
      { type: "multiple", scoringMode: "partial", pointsHundredths: 250 },
      { type: "free_text", correctText: ["Paris"] },
      { type: "matching", matches: [{ left: "France", right: "Paris" }, { left: "Italy", right: "Rome" }, { right: "Berlin" }, { left: "Spain", right: "Madrid", deleted: true }] },
      { type: "single", deleted: true },
    ],
  });
  return { quiz, picture };
}

describe("loadQuestions: the staff view", () => {
  it("reads every live question, answer and pair with is_correct, correct_text, scoring_mode and fresh image links", async () => {
    const school = await createSchool();
    const { quiz, picture } = await oneOfEach(school.id);
    const [single, multiple, free, matching] = quiz.questions;
    const questions = (await loadQuestions(await ctxFor(school.id), [quiz.id], "staff")).get(quiz.id)!;
    expect(questions.map((q) => q.id)).toEqual([single!.id, multiple!.id, free!.id, matching!.id]);
    expect(questions[0]).toMatchObject({
      quiz_id: quiz.id,
      type: "single",
      image_url: expect.stringMatching(LINK(picture)),
      points: "1.00",
      scoring_mode: null,
      answers: [
        { id: single!.answerIds[0], text: "A", image_url: expect.stringMatching(LINK(picture)), is_correct: true, position: 0 },
        { id: single!.answerIds[1], text: "B", image_url: null, is_correct: false, position: 1 },
      ],
      correct_text: [],
      matches: [],
    });
    expect(questions[1]).toMatchObject({ type: "multiple", points: "2.50", scoring_mode: "partial" });
    expect(questions[2]).toMatchObject({ type: "free_text", answers: [], correct_text: ["Paris"], matches: [] });
    expect(questions[3]).toMatchObject({
      type: "matching",
      answers: [],
      matches: [
        { id: matching!.matchIds[0], left_text: "France", right_text: "Paris", position: 0 },
        { id: matching!.matchIds[1], left_text: "Italy", right_text: "Rome", position: 1 },
        { id: matching!.matchIds[2], left_text: null, right_text: "Berlin", position: 2 },
      ],
    });
    expect(JSON.stringify(questions)).not.toContain(`"${picture}"`);
  });

  it("reads several quizzes in one round trip; a quiz without questions, deleted or foreign, has an empty list", async () => {
    // One shard: only the school condition keeps the other school's questions out.
    const school = await createSchool({ shard: "DB_SCHOOLS_0" });
    const other = await createSchool({ shard: "DB_SCHOOLS_0" });
    const first = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "matching" }] });
    const second = await insertQuiz(school.id, { questions: [{ type: "free_text" }] });
    const empty = await insertQuiz(school.id);
    const foreign = await insertQuiz(other.id, { questions: [{ type: "single" }] });
    const counted = roundTripD1(await schoolD1(school.id));
    const byQuiz = await loadQuestions(await ctxFor(school.id, envWith(counted.db)), [first.id, second.id, empty.id, foreign.id, first.id], "student");
    expect(counted.roundTrips()).toBe(1);
    expect([...byQuiz.keys()]).toEqual([first.id, second.id, empty.id, foreign.id]);
    expect(byQuiz.get(first.id)!.map((q) => q.id)).toEqual(first.questions.map((q) => q.id));
    expect(byQuiz.get(second.id)!.map((q) => q.id)).toEqual(second.questions.map((q) => q.id));
    expect(byQuiz.get(empty.id)).toEqual([]);
    expect(byQuiz.get(foreign.id)).toEqual([]);
    expect((await loadQuestions(await ctxFor(school.id), [], "staff")).size).toBe(0);
  });
});

describe("loadQuestions: the student view", () => {
  it("hides is_correct, correct_text and scoring_mode; matching shows lefts with real ids and every right as a token", async () => {
    const school = await createSchool();
    const { quiz, picture } = await oneOfEach(school.id);
    const [single, multiple, free, matching] = quiz.questions;
    const questions = (await loadQuestions(await ctxFor(school.id), [quiz.id], "student")).get(quiz.id)! as StudentQuestion[];
    expect(questions[0]).toEqual({
      id: single!.id,
      type: "single",
      prompt: "Question 1",
      image_url: expect.stringMatching(LINK(picture)),
      position: 0,
      points: "1.00",
      answers: [
        { id: single!.answerIds[0], text: "A", image_url: expect.stringMatching(LINK(picture)), position: 0 },
        { id: single!.answerIds[1], text: "B", image_url: null, position: 1 },
      ],
    });
    expect(questions[1]).toEqual({ id: multiple!.id, type: "multiple", prompt: "Question 2", image_url: null, position: 1, points: "2.50", answers: expect.any(Array) });
    expect(questions[2]).toEqual({ id: free!.id, type: "free_text", prompt: "Question 3", image_url: null, position: 2, points: "1.00" });
    const view = questions[3]!;
    expect(Object.keys(view).sort()).toEqual(["id", "image_url", "match_lefts", "match_rights", "points", "position", "prompt", "type"]);
    expect(view.match_lefts).toEqual([
      { id: matching!.matchIds[0], text: "France" },
      { id: matching!.matchIds[1], text: "Italy" },
    ]);
    expect(view.match_rights!.map((r) => r.text).sort()).toEqual(["Berlin", "Paris", "Rome"]);
    const text = JSON.stringify(questions);
    for (const hidden of ["is_correct", "correct_text", "scoring_mode", "quiz_id", '"Madrid"', '"gone"', `"${picture}"`]) expect(text).not.toContain(hidden);
    for (const id of matching!.matchIds) expect(view.match_rights!.map((r) => r.id)).not.toContain(id);
  });

  it("seals new right tokens on every read; each opens to its own row for its question, never for another question or school", async () => {
    const school = await createSchool();
    const other = await createSchool();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "matching" }, { type: "matching" }] });
    const [first, second] = quiz.questions;
    const read = async () => ((await loadQuestions(await ctxFor(school.id), [quiz.id], "student")).get(quiz.id)! as StudentQuestion[])[0]!.match_rights!;
    const one = await read();
    const two = await read();
    const tokens = [...one, ...two].map((r) => r.id);
    expect(new Set(tokens).size).toBe(tokens.length);

    const rowByRight = new Map([
      ["R1", first!.matchIds[0]],
      ["R2", first!.matchIds[1]],
    ]);
    for (const right of [...one, ...two]) {
      expect(await openMatchToken(env, school.id, first!.id, right.id)).toBe(rowByRight.get(right.text));
      expect(await openMatchToken(env, school.id, second!.id, right.id)).toBeNull();
      expect(await openMatchToken(env, other.id, first!.id, right.id)).toBeNull();
    }
  });
});

describe("PATCH /t/quiz-questions/:id: concurrent replaces", () => {
  it("plans again from the state the first one left: an answer it removed cannot be kept by the second", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const question = quiz.questions[0]!;
    const [a] = question.answerIds;
    const { db: held, stats } = barrierD1(await schoolD1(school.id), { held: /update "quiz_questions" set/i, parties: [2, 1] });
    const call = (body: unknown) => requestWithD1(held, `/t/quiz-questions/${question.id}`, { method: "PATCH", token: admin.token, tenant: admin.subdomain, body });
    const [dropA, keepA] = await Promise.all([call({ answers: [{ text: "new" }] }), call({ answers: [{ id: a, text: "A kept" }] })]);
    expect(dropA.status).toBe(200);
    // Both read the same question and write together; only when keepA wins does dropA plan again and write alone.
    expect(stats.releases).toEqual(keepA.status === 200 ? [2, 1] : [2]);
    // Either order ends with the same answers: only "new". The request keeping A fails once A is gone, or goes first and is replaced.
    if (keepA.status !== 200) expect(failure(keepA)).toEqual({ status: 400, error: "invalid_request_body" });
    const live = await db()
      .select({ text: schema.quizAnswers.text })
      .from(schema.quizAnswers)
      .where(and(eq(schema.quizAnswers.questionId, question.id), isNull(schema.quizAnswers.deletedAt)));
    expect(live).toEqual([{ text: "new" }]);
  });
});
