import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { giveQuizAccess, insertQuiz } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn } from "../../helpers/users";

/** The quiz's form settings (05 section 2): `questions_per_attempt`, `shuffle_questions`, `shuffle_answers`. */

async function quizRow(id: string) {
  const [row] = await db().select().from(schema.quizzes).where(eq(schema.quizzes.id, id));
  return row;
}

const patch = (member: Parameters<typeof as>[0], id: string, body: unknown) => as(member, `/t/quizzes/${id}`, { method: "PATCH", body });

describe("quiz form settings", () => {
  it("POST takes them (defaults null, false, false) and every view shows them, a student's too", async () => {
    const { school, admin } = await schoolWithAdmin();
    const plain = await as(admin, "/t/quizzes", { body: { title: "Plain" } });
    expect(plain.status).toBe(201);
    expect(plain.body.data).toMatchObject({ questions_per_attempt: null, shuffle_questions: false, shuffle_answers: false });
    const formed = await as(admin, "/t/quizzes", { body: { title: "Formed", questions_per_attempt: 500, shuffle_questions: true, shuffle_answers: true } });
    expect(formed.status).toBe(201);
    expect(formed.body.data).toMatchObject({ questions_per_attempt: 500, shuffle_questions: true, shuffle_answers: true });
    expect(await quizRow(formed.body.data.id)).toMatchObject({ questionsPerAttempt: 500, shuffleQuestions: true, shuffleAnswers: true });
    const nulled = await as(admin, "/t/quizzes", { body: { title: "Nulled", questions_per_attempt: null } });
    expect(nulled.body.data.questions_per_attempt).toBeNull();

    expect((await as(admin, `/t/quizzes/${formed.body.data.id}`)).body.data).toMatchObject({ questions_per_attempt: 500, shuffle_questions: true, shuffle_answers: true });
    const list = await as(admin, "/t/quizzes?q=Formed");
    expect(list.body.data.quizzes.map((quiz: Record<string, unknown>) => [quiz.questions_per_attempt, quiz.shuffle_questions, quiz.shuffle_answers])).toEqual([[500, true, true]]);

    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { questionsPerAttempt: 1, shuffleAnswers: true, questions: [{ type: "single" }, { type: "single" }] });
    await giveQuizAccess(school.id, quiz.id, [student.id]);
    expect((await as(student, `/t/quizzes/${quiz.id}`)).body.data).toMatchObject({ questions_per_attempt: 1, shuffle_questions: false, shuffle_answers: true });
  });

  it("refuses values out of range or of another type (400 invalid_request_body)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    for (const body of [{ questions_per_attempt: 0 }, { questions_per_attempt: 501 }, { questions_per_attempt: 1.5 }, { questions_per_attempt: "2" }, { shuffle_questions: "true" }, { shuffle_answers: null }, { shuffle_questions: 1 }]) {
      expect({ body, ...failure(await as(admin, "/t/quizzes", { body: { title: "Bad", ...body } })) }).toEqual({ body, status: 400, error: "invalid_request_body" });
      expect({ body, ...failure(await patch(admin, quiz.id, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
  });

  it("PATCH above the live question count is 400 questions_per_attempt_too_large and changes nothing; up to it, and null, apply", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "single" }, { type: "single", deleted: true }] });
    expect(failure(await patch(admin, quiz.id, { questions_per_attempt: 3, title: "Changed", shuffle_questions: true }))).toEqual({ status: 400, error: "questions_per_attempt_too_large" });
    expect(await quizRow(quiz.id)).toMatchObject({ questionsPerAttempt: null, shuffleQuestions: false });
    expect((await quizRow(quiz.id))!.title).not.toBe("Changed");

    const fits = await patch(admin, quiz.id, { questions_per_attempt: 2, shuffle_questions: true, shuffle_answers: true });
    expect(fits.status).toBe(200);
    expect(fits.body.data).toMatchObject({ questions_per_attempt: 2, shuffle_questions: true, shuffle_answers: true });
    const cleared = await patch(admin, quiz.id, { questions_per_attempt: null, shuffle_answers: false });
    expect(cleared.body.data).toMatchObject({ questions_per_attempt: null, shuffle_questions: true, shuffle_answers: false });
    expect(failure(await patch(admin, "0190d0a4-5b6c-7d8e-9f00-112233445566", { questions_per_attempt: 1 }))).toEqual({ status: 404, error: "quiz_not_found" });
  });
});
