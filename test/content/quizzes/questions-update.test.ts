import { and, asc, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { MEDIA_LINK as LINK } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { as, schoolWithAdmin, unknownId, type Member } from "../../helpers/users";
import { storedImage } from "../../media/helpers";

async function setup() {
  return schoolWithAdmin();
}

const patch = (member: Member, id: string, body: unknown) => as(member, `/t/quiz-questions/${id}`, { method: "PATCH", body });

async function questionRow(id: string) {
  const [row] = await db().select().from(schema.quizQuestions).where(eq(schema.quizQuestions.id, id));
  return row!;
}

async function liveAnswers(questionId: string) {
  return db()
    .select()
    .from(schema.quizAnswers)
    .where(and(eq(schema.quizAnswers.questionId, questionId), isNull(schema.quizAnswers.deletedAt)))
    .orderBy(asc(schema.quizAnswers.position));
}

async function liveMatches(questionId: string) {
  return db()
    .select()
    .from(schema.quizMatches)
    .where(and(eq(schema.quizMatches.questionId, questionId), isNull(schema.quizMatches.deletedAt)))
    .orderBy(asc(schema.quizMatches.position));
}

describe("PATCH /t/quiz-questions/:id: fields", () => {
  it("changes prompt, points and scoring mode; an empty scoring_mode resets to the quiz default; omitted fields stay", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "multiple", prompt: "Old", scoringMode: "partial" }] });
    await db().update(schema.quizzes).set({ updatedAt: 1 }).where(eq(schema.quizzes.id, quiz.id));
    const id = quiz.questions[0]!.id;

    const res = await patch(admin, id, { prompt: "New prompt", points: "0.5" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, quiz_id: quiz.id, type: "multiple", prompt: "New prompt", points: "0.50", scoring_mode: "partial" });
    expect(res.body.data.answers.map((a: { text: string }) => a.text)).toEqual(["A", "B"]);
    const [quizRow] = await db().select().from(schema.quizzes).where(eq(schema.quizzes.id, quiz.id));
    expect(quizRow!.updatedAt).toBeGreaterThan(1);

    const reset = await patch(admin, id, { scoring_mode: "" });
    expect(reset.body.data).toMatchObject({ prompt: "New prompt", points: "0.50", scoring_mode: null });
    expect((await patch(admin, id, { scoring_mode: "all_or_nothing" })).body.data.scoring_mode).toBe("all_or_nothing");
    // An empty body changes nothing but is a valid update.
    expect((await as(admin, `/t/quiz-questions/${id}`, { method: "PATCH" })).body.data).toMatchObject({ prompt: "New prompt", scoring_mode: "all_or_nothing" });
  });

  it("never changes the type: `type` is not a field of the update (400 invalid_request_body)", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const id = quiz.questions[0]!.id;
    expect(failure(await patch(admin, id, { type: "multiple" }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect((await questionRow(id)).type).toBe("single");
  });

  it("sets, keeps and removes the question's image; the answer is a fresh link, never the asset id", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single", prompt: "", imageAssetId: null }] });
    const id = quiz.questions[0]!.id;
    const image = await storedImage(school.id);
    const set = await patch(admin, id, { image_asset_id: image, prompt: "" });
    expect(set.status).toBe(200);
    expect(set.body.data.image_url).toMatch(LINK(image));
    expect(JSON.stringify(set.body.data)).not.toContain(`"${image}"`);
    // Without a prompt the image must stay.
    expect(failure(await patch(admin, id, { remove_image: true }))).toEqual({ status: 400, error: "question_content_required" });
    const kept = await patch(admin, id, { prompt: "Now with words" });
    expect(kept.body.data.image_url).toMatch(LINK(image));
    const removed = await patch(admin, id, { remove_image: true });
    expect(removed.body.data).toMatchObject({ prompt: "Now with words", image_url: null });
    expect((await questionRow(id)).imageAssetId).toBeNull();
    expect(failure(await patch(admin, id, { prompt: "" }))).toEqual({ status: 400, error: "question_content_required" });
    expect(failure(await patch(admin, id, { image_asset_id: image, remove_image: true }))).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it("refuses images that are not confirmed images of the school (400 invalid_quiz_image_asset), for the question and its answers", async () => {
    const { school, admin } = await setup();
    const other = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const id = quiz.questions[0]!.id;
    const bad = [
      unknownId(),
      await storedImage(other.school.id),
      await storedImage(school.id, { status: "pending" }),
      await storedImage(school.id, { kind: "pdf", mime: "application/pdf" }),
    ];
    for (const image of bad) {
      expect(failure(await patch(admin, id, { image_asset_id: image }))).toEqual({ status: 400, error: "invalid_quiz_image_asset" });
      expect(failure(await patch(admin, id, { answers: [{ image_asset_id: image }] }))).toEqual({ status: 400, error: "invalid_quiz_image_asset" });
    }
    expect((await questionRow(id)).imageAssetId).toBeNull();
    expect((await liveAnswers(id)).map((a) => a.text)).toEqual(["A", "B"]);
  });

  it("refuses `partial` for single and free-text questions and other bad bodies (400 invalid_request_body)", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "free_text" }, { type: "multiple" }, { type: "matching" }] });
    const [single, free, multiple, matching] = quiz.questions.map((q) => q.id) as [string, string, string, string];
    for (const id of [single, free]) expect(failure(await patch(admin, id, { scoring_mode: "partial" }))).toEqual({ status: 400, error: "invalid_request_body" });
    for (const id of [multiple, matching]) expect((await patch(admin, id, { scoring_mode: "partial" })).body.data.scoring_mode).toBe("partial");
    const bodies = [
      { points: "0" },
      { points: 0 },
      { points: "1.005" },
      { prompt: "x".repeat(2001) },
      { scoring_mode: "none" },
      { image_asset_id: "nope" },
      { answers: [{ text: "x".repeat(501) }] },
      { answers: [{ text: "A", extra: 1 }] },
      { answers: "A" },
      { answers: [{ id: "nope", text: "A" }] },
    ];
    for (const body of bodies) expect(failure(await patch(admin, single, body)), JSON.stringify(body)).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await as(admin, "/t/quiz-questions/nope", { method: "PATCH", body: { prompt: "Q" } }))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("answers 404 question_not_found for a missing, deleted or foreign question, or one of a deleted quiz", async () => {
    const { school, admin } = await setup();
    const foreign = await insertQuiz((await setup()).school.id, { questions: [{ type: "single" }] });
    const deletedQuiz = await insertQuiz(school.id, { deleted: true, questions: [{ type: "single" }] });
    const deletedQuestion = await insertQuiz(school.id, { questions: [{ type: "single", deleted: true }] });
    for (const id of [unknownId(), foreign.questions[0]!.id, deletedQuiz.questions[0]!.id, deletedQuestion.questions[0]!.id]) {
      expect(failure(await patch(admin, id, { prompt: "Mine now" }))).toEqual({ status: 404, error: "question_not_found" });
    }
    expect((await questionRow(foreign.questions[0]!.id)).prompt).toBe("Question 1");
  });
});

describe("PATCH /t/quiz-questions/:id: answers (REPLACE)", () => {
  it("keeps listed ids and their pictures, adds items without id, removes the rest", async () => {
    const { school, admin } = await setup();
    const picture = await storedImage(school.id);
    const quiz = await insertQuiz(school.id, {
      questions: [{ type: "multiple", answers: [{ text: "A", isCorrect: true, imageAssetId: picture }, { text: "B" }, { text: "C", isCorrect: true }] }],
    });
    const question = quiz.questions[0]!;
    const [a, b, c] = question.answerIds as [string, string, string];
    const fresh = await storedImage(school.id);

    const res = await patch(admin, question.id, {
      answers: [{ id: c, text: "C, now first", image_asset_id: fresh }, { text: "D (new)", is_correct: true }, { id: a.toUpperCase(), text: "" }],
    });
    expect(res.status).toBe(200);
    const answers = res.body.data.answers;
    expect(answers).toEqual([
      { id: c, text: "C, now first", image_url: expect.stringMatching(LINK(fresh)), is_correct: false, position: 0 },
      { id: expect.any(String), text: "D (new)", image_url: null, is_correct: true, position: 1 },
      // Listed by id without a picture field: the picture stays, so it may drop its text.
      { id: a, text: "", image_url: expect.stringMatching(LINK(picture)), is_correct: false, position: 2 },
    ]);
    expect(answers[1].id).not.toBe(b);
    const rows = await liveAnswers(question.id);
    expect(rows.map((r) => [r.id, r.text, r.imageAssetId, r.isCorrect])).toEqual([
      [c, "C, now first", fresh, false],
      [answers[1].id, "D (new)", null, true],
      [a, "", picture, false],
    ]);
    // B is gone from reads, kept as a soft-deleted row for finished attempts.
    const [removed] = await db().select().from(schema.quizAnswers).where(eq(schema.quizAnswers.id, b));
    expect(removed!.deletedAt).not.toBeNull();

    // A removed answer cannot come back by id; remove_image drops a kept picture.
    expect(failure(await patch(admin, question.id, { answers: [{ id: b, text: "B" }] }))).toEqual({ status: 400, error: "invalid_request_body" });
    const dropped = await patch(admin, question.id, { answers: [{ id: a, text: "A again", remove_image: true }] });
    expect(dropped.body.data.answers).toEqual([{ id: a, text: "A again", image_url: null, is_correct: false, position: 0 }]);
    expect((await liveAnswers(question.id)).map((r) => r.id)).toEqual([a]);
    // An empty list removes every answer.
    expect((await patch(admin, question.id, { answers: [] })).body.data.answers).toEqual([]);
  });

  it("refuses answers ids of another question and the same id twice (400 invalid_request_body); nothing changes", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "single" }] });
    const [mine, theirs] = quiz.questions;
    const [a] = mine!.answerIds;
    for (const answers of [[{ id: theirs!.answerIds[0], text: "X" }], [{ id: a, text: "A" }, { id: a, text: "A2" }], [{ id: a, text: "A", image_asset_id: unknownId(), remove_image: true }]]) {
      expect(failure(await patch(admin, mine!.id, { answers })), JSON.stringify(answers)).toEqual({ status: 400, error: "invalid_request_body" });
    }
    expect((await liveAnswers(mine!.id)).map((r) => r.text)).toEqual(["A", "B"]);
  });

  it("needs a text or a picture on every answer (400 answer_content_required)", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const question = quiz.questions[0]!;
    for (const answers of [[{ text: "A" }, { is_correct: true }], [{ id: question.answerIds[0], text: "  " }], [{ text: "" }]]) {
      expect(failure(await patch(admin, question.id, { answers }))).toEqual({ status: 400, error: "answer_content_required" });
    }
    const image = await storedImage(school.id);
    const res = await patch(admin, question.id, { answers: [{ image_asset_id: image, is_correct: true }, { text: "B" }] });
    expect(res.body.data.answers[0]).toMatchObject({ text: "", image_url: expect.stringMatching(LINK(image)), is_correct: true });
  });

  it("allows at most one correct answer on a single choice (400 single_choice_multiple_correct), any number on a multiple", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "multiple" }] });
    const [single, multiple] = quiz.questions.map((q) => q.id) as [string, string];
    const two = [{ text: "A", is_correct: true }, { text: "B", is_correct: true }];
    expect(failure(await patch(admin, single, { answers: two }))).toEqual({ status: 400, error: "single_choice_multiple_correct" });
    expect((await liveAnswers(single)).map((r) => r.text)).toEqual(["A", "B"]);
    expect((await patch(admin, multiple, { answers: two })).body.data.answers.map((a: { is_correct: boolean }) => a.is_correct)).toEqual([true, true]);
    expect((await patch(admin, single, { answers: [{ text: "Only", is_correct: true }, { text: "Not" }] })).status).toBe(200);
  });

  it("refuses parts of another type: answers_not_allowed_for_free_text, answers_not_allowed_for_matching, correct_text_not_allowed_for_choice, matches_not_allowed_for_non_matching_question", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "multiple" }, { type: "free_text" }, { type: "matching" }] });
    const [single, multiple, free, matching] = quiz.questions.map((q) => q.id) as [string, string, string, string];
    const answers = [{ text: "A" }];
    const matches = [{ left_text: "L", right_text: "R" }];
    expect(failure(await patch(admin, free, { answers }))).toEqual({ status: 400, error: "answers_not_allowed_for_free_text" });
    expect(failure(await patch(admin, matching, { answers }))).toEqual({ status: 400, error: "answers_not_allowed_for_matching" });
    for (const id of [single, multiple, matching]) {
      expect(failure(await patch(admin, id, { correct_text: ["x"] }))).toEqual({ status: 400, error: "correct_text_not_allowed_for_choice" });
    }
    for (const id of [single, multiple, free]) {
      expect(failure(await patch(admin, id, { matches }))).toEqual({ status: 400, error: "matches_not_allowed_for_non_matching_question" });
    }
  });
});

describe("PATCH /t/quiz-questions/:id: correct_text and matches", () => {
  it("replaces a free-text question's accepted answers", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "free_text", correctText: ["old"] }] });
    const id = quiz.questions[0]!.id;
    const res = await patch(admin, id, { correct_text: [" Paris ", "paris, France"] });
    expect(res.body.data).toMatchObject({ correct_text: ["Paris", "paris, France"], answers: [], matches: [] });
    expect((await questionRow(id)).correctText).toEqual(["Paris", "paris, France"]);
    expect((await patch(admin, id, { correct_text: [] })).body.data.correct_text).toEqual([]);
    for (const correct_text of [[""], ["x".repeat(501)], "Paris"]) {
      expect(failure(await patch(admin, id, { correct_text }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
  });

  it("replaces a matching question's pairs and distractors with new rows", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "matching" }] });
    const question = quiz.questions[0]!;
    const res = await patch(admin, question.id, {
      matches: [{ left_text: "France", right_text: "Paris" }, { left_text: "Italy", right_text: "Rome" }, { right_text: "Berlin" }, { left_text: "", right_text: "Madrid" }],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.matches).toEqual([
      { id: expect.any(String), left_text: "France", right_text: "Paris", position: 0 },
      { id: expect.any(String), left_text: "Italy", right_text: "Rome", position: 1 },
      { id: expect.any(String), left_text: null, right_text: "Berlin", position: 2 },
      { id: expect.any(String), left_text: null, right_text: "Madrid", position: 3 },
    ]);
    const ids = res.body.data.matches.map((m: { id: string }) => m.id);
    expect(ids.some((id: string) => question.matchIds.includes(id))).toBe(false);
    expect((await liveMatches(question.id)).map((m) => m.id)).toEqual(ids);
    const old = await db().select().from(schema.quizMatches).where(eq(schema.quizMatches.id, question.matchIds[0]!));
    expect(old[0]!.deletedAt).not.toBeNull();
  });

  it("refuses an empty list, a repeated right_text and a list of distractors only (400 invalid_request_body)", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "matching" }] });
    const question = quiz.questions[0]!;
    const bodies = [
      { matches: [] },
      { matches: [{ left_text: "A", right_text: "Same" }, { left_text: "B", right_text: " Same " }] },
      { matches: [{ right_text: "Lonely" }] },
      { matches: [{ left_text: "A", right_text: "" }] },
      { matches: [{ left_text: "A", right_text: "R", id: unknownId() }] },
    ];
    for (const body of bodies) expect(failure(await patch(admin, question.id, body)), JSON.stringify(body)).toEqual({ status: 400, error: "invalid_request_body" });
    expect((await liveMatches(question.id)).map((m) => m.id)).toEqual(question.matchIds);
  });
});
