import { and, asc, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { ISO, MEDIA_LINK as LINK } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { storedImage } from "../../media/helpers";

async function setup() {
  const { school, admin } = await schoolWithAdmin();
  return { school, admin };
}

async function quizRow(id: string) {
  const [row] = await db().select().from(schema.quizzes).where(eq(schema.quizzes.id, id));
  return row!;
}

async function liveQuestionIds(quizId: string) {
  const rows = await db()
    .select({ id: schema.quizQuestions.id })
    .from(schema.quizQuestions)
    .where(and(eq(schema.quizQuestions.quizId, quizId), isNull(schema.quizQuestions.deletedAt)))
    .orderBy(asc(schema.quizQuestions.position), asc(schema.quizQuestions.id));
  return rows.map((row) => row.id);
}

describe("POST /t/quizzes/:id/questions", () => {
  it("appends a question of each type and answers the staff view (201), bumping the quiz's updated_at", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    await db().update(schema.quizzes).set({ updatedAt: 1 }).where(eq(schema.quizzes.id, quiz.id));
    const path = `/t/quizzes/${quiz.id}/questions`;

    const res = await as(admin, path, { body: { type: "multiple", prompt: "  Pick the primes  ", points: "2.5", scoring_mode: "partial" } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      quiz_id: quiz.id,
      type: "multiple",
      prompt: "Pick the primes",
      image_url: null,
      position: 1,
      points: "2.50",
      scoring_mode: "partial",
      answers: [],
      correct_text: [],
      matches: [],
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect((await quizRow(quiz.id)).updatedAt).toBeGreaterThan(1);

    const free = await as(admin, path, { body: { type: "free_text", prompt: "Name it", points: 3 } });
    expect(free.body.data).toMatchObject({ type: "free_text", position: 2, points: "3.00", scoring_mode: null, correct_text: [] });
    const matching = await as(admin, path, { body: { type: "matching", prompt: "Pair them", scoring_mode: "all_or_nothing" } });
    expect(matching.body.data).toMatchObject({ type: "matching", position: 3, points: "1.00", scoring_mode: "all_or_nothing", matches: [] });
    expect(await liveQuestionIds(quiz.id)).toEqual([quiz.questions[0]!.id, res.body.data.id, free.body.data.id, matching.body.data.id]);

    // A curator who may manage courses writes questions too.
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect((await as(curator, path, { body: { type: "single", prompt: "Q" } })).status).toBe(201);
  });

  it("takes an image instead of a prompt: the answer carries a fresh link, never the asset id", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id);
    const image = await storedImage(school.id);
    const res = await as(admin, `/t/quizzes/${quiz.id}/questions`, { body: { type: "single", image_asset_id: image.toUpperCase() } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ prompt: "", image_url: expect.stringMatching(LINK(image)) });
    expect(JSON.stringify(res.body.data)).not.toContain(`"${image}"`);
    expect(res.body.data).not.toHaveProperty("image_asset_id");
    const [row] = await db().select().from(schema.quizQuestions).where(eq(schema.quizQuestions.id, res.body.data.id));
    expect(row!.imageAssetId).toBe(image);
  });

  it("needs a prompt or an image (400 question_content_required)", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id);
    for (const body of [{ type: "single" }, { type: "free_text", prompt: "   " }]) {
      expect(failure(await as(admin, `/t/quizzes/${quiz.id}/questions`, { body }))).toEqual({ status: 400, error: "question_content_required" });
    }
    expect(await liveQuestionIds(quiz.id)).toEqual([]);
  });

  it("refuses an image that is not a confirmed image of the school (400 invalid_quiz_image_asset)", async () => {
    const { school, admin } = await setup();
    const other = await setup();
    const quiz = await insertQuiz(school.id);
    const bad = [
      unknownId(),
      await storedImage(other.school.id),
      await storedImage(school.id, { status: "pending" }),
      await storedImage(school.id, { kind: "pdf", mime: "application/pdf" }),
    ];
    for (const image of bad) {
      expect(failure(await as(admin, `/t/quizzes/${quiz.id}/questions`, { body: { type: "single", prompt: "Q", image_asset_id: image } }))).toEqual({
        status: 400,
        error: "invalid_quiz_image_asset",
      });
    }
    expect(await liveQuestionIds(quiz.id)).toEqual([]);
  });

  it("refuses a bad body (400 invalid_request_body) and a bad id (400 invalid_id_format)", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id);
    const path = `/t/quizzes/${quiz.id}/questions`;
    const bodies = [
      {},
      { type: "essay", prompt: "Q" },
      { type: "single", prompt: "x".repeat(2001) },
      { type: "single", prompt: "Q", points: "0" },
      { type: "single", prompt: "Q", points: "-1" },
      { type: "single", prompt: "Q", points: "1.234" },
      { type: "single", prompt: "Q", points: "abc" },
      { type: "single", prompt: "Q", scoring_mode: "generous" },
      { type: "single", prompt: "Q", scoring_mode: "partial" },
      { type: "free_text", prompt: "Q", scoring_mode: "partial" },
      { type: "single", prompt: "Q", image_asset_id: "not-a-uuid" },
      { type: "single", prompt: "Q", answers: [{ text: "A" }] },
    ];
    for (const body of bodies) {
      expect(failure(await as(admin, path, { body })), JSON.stringify(body)).toEqual({ status: 400, error: "invalid_request_body" });
    }
    expect(failure(await as(admin, "/t/quizzes/nope/questions", { body: { type: "single", prompt: "Q" } }))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(await liveQuestionIds(quiz.id)).toEqual([]);
  });

  it("answers 404 quiz_not_found for a missing, deleted or foreign quiz", async () => {
    const { school, admin } = await setup();
    const deleted = await insertQuiz(school.id, { deleted: true });
    const foreign = await insertQuiz((await setup()).school.id);
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await as(admin, `/t/quizzes/${id}/questions`, { body: { type: "single", prompt: "Q" } }))).toEqual({ status: 404, error: "quiz_not_found" });
    }
    expect(await liveQuestionIds(foreign.id)).toEqual([]);
    expect(await liveQuestionIds(deleted.id)).toEqual([]);
  });
});

describe("PATCH /t/quizzes/:id/reorder-questions", () => {
  it("puts the live questions in the given order (positions 0..n-1) and bumps the quiz", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "free_text" }, { type: "matching" }, { type: "single", deleted: true }] });
    await db().update(schema.quizzes).set({ updatedAt: 1 }).where(eq(schema.quizzes.id, quiz.id));
    const [a, b, c] = quiz.questions.map((q) => q.id) as [string, string, string];
    const res = await as(admin, `/t/quizzes/${quiz.id}/reorder-questions`, { method: "PATCH", body: { ordered_ids: [c, a.toUpperCase(), b] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ reordered: 3 });
    expect(await liveQuestionIds(quiz.id)).toEqual([c, a, b]);
    const positions = await db().select({ id: schema.quizQuestions.id, position: schema.quizQuestions.position }).from(schema.quizQuestions).where(and(eq(schema.quizQuestions.tenantId, school.id), isNull(schema.quizQuestions.deletedAt)));
    expect(Object.fromEntries(positions.filter((p) => [a, b, c].includes(p.id)).map((p) => [p.id, p.position]))).toEqual({ [c]: 0, [a]: 1, [b]: 2 });
    expect((await quizRow(quiz.id)).updatedAt).toBeGreaterThan(1);
  });

  it("needs the exact set: 409 reorder_duplicate, 409 reorder_incomplete; nothing moves", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "single" }, { type: "single", deleted: true }] });
    const other = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const [a, b, gone] = quiz.questions.map((q) => q.id) as [string, string, string];
    const path = `/t/quizzes/${quiz.id}/reorder-questions`;
    expect(failure(await as(admin, path, { method: "PATCH", body: { ordered_ids: [b, a, b] } }))).toEqual({ status: 409, error: "reorder_duplicate" });
    for (const ids of [[b], [b, a, gone], [b, a, other.questions[0]!.id], [b, unknownId()]]) {
      expect(failure(await as(admin, path, { method: "PATCH", body: { ordered_ids: ids } }))).toEqual({ status: 409, error: "reorder_incomplete" });
    }
    for (const body of [{}, { ordered_ids: [] }, { ordered_ids: ["x"] }, { question_ids: [a, b] }]) {
      expect(failure(await as(admin, path, { method: "PATCH", body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    expect(await liveQuestionIds(quiz.id)).toEqual([a, b]);
  });

  it("answers 404 quiz_not_found for a missing, deleted or foreign quiz", async () => {
    const { school, admin } = await setup();
    const deleted = await insertQuiz(school.id, { deleted: true, questions: [{ type: "single" }] });
    const foreign = await insertQuiz((await setup()).school.id, { questions: [{ type: "single" }] });
    for (const quiz of [deleted, foreign]) {
      expect(failure(await as(admin, `/t/quizzes/${quiz.id}/reorder-questions`, { method: "PATCH", body: { ordered_ids: [quiz.questions[0]!.id] } }))).toEqual({
        status: 404,
        error: "quiz_not_found",
      });
    }
  });
});

describe("DELETE /t/quiz-questions/:id", () => {
  it("soft-deletes the question with its answers (204); the next reorder and append skip it", async () => {
    const { school, admin } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "matching" }] });
    await db().update(schema.quizzes).set({ updatedAt: 1 }).where(eq(schema.quizzes.id, quiz.id));
    const [single, matching] = quiz.questions;
    const res = await as(admin, `/t/quiz-questions/${single!.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await liveQuestionIds(quiz.id)).toEqual([matching!.id]);
    const [row] = await db().select().from(schema.quizQuestions).where(eq(schema.quizQuestions.id, single!.id));
    expect(row!.deletedAt).not.toBeNull();
    const answers = await db().select().from(schema.quizAnswers).where(eq(schema.quizAnswers.questionId, single!.id));
    expect(answers.map((a) => a.deletedAt)).toEqual([row!.deletedAt, row!.deletedAt]);
    expect((await quizRow(quiz.id)).updatedAt).toBeGreaterThan(1);

    expect((await as(admin, `/t/quiz-questions/${matching!.id}`, { method: "DELETE" })).status).toBe(204);
    const matches = await db().select().from(schema.quizMatches).where(eq(schema.quizMatches.questionId, matching!.id));
    expect(matches.every((m) => m.deletedAt !== null)).toBe(true);

    // Deleted: a second delete, an update and a reorder naming it all find nothing.
    expect(failure(await as(admin, `/t/quiz-questions/${single!.id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "question_not_found" });
    expect(failure(await as(admin, `/t/quiz-questions/${single!.id}`, { method: "PATCH", body: { prompt: "Back?" } }))).toEqual({ status: 404, error: "question_not_found" });
    expect(failure(await as(admin, `/t/quizzes/${quiz.id}/reorder-questions`, { method: "PATCH", body: { ordered_ids: [single!.id] } }))).toEqual({
      status: 409,
      error: "reorder_incomplete",
    });
  });

  it("answers 404 question_not_found for a missing or foreign question, or one of a deleted quiz; 400 invalid_id_format for a bad id", async () => {
    const { school, admin } = await setup();
    const foreign = await insertQuiz((await setup()).school.id, { questions: [{ type: "single" }] });
    const deletedQuiz = await insertQuiz(school.id, { deleted: true, questions: [{ type: "single" }] });
    for (const id of [unknownId(), foreign.questions[0]!.id, deletedQuiz.questions[0]!.id]) {
      expect(failure(await as(admin, `/t/quiz-questions/${id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "question_not_found" });
    }
    const [row] = await db().select().from(schema.quizQuestions).where(eq(schema.quizQuestions.id, foreign.questions[0]!.id));
    expect(row!.deletedAt).toBeNull();
    expect(failure(await as(admin, "/t/quiz-questions/123", { method: "DELETE" }))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});
