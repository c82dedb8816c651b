import { describe, expect, it } from "vitest";
import { failure } from "../../helpers/http";
import { examForStudent, opened, saveSection, sectionQuizAttempts, single, startedExam, submitExam } from "./attempt-helpers";

/** An exam section whose quiz draws forms draws at its first `go` (05 section 2), and keeps the form on every later `go`. */

const ten = Array.from({ length: 10 }, () => ({ type: "single" as const }));

describe("exam sections with random forms", () => {
  it("draws at go: the section shows exactly the drawn questions, the same on every go; saves outside are question_not_in_form; the section scores its form", async () => {
    const { student, exam, quizzes } = await examForStudent({}, [
      { quiz: { questionsPerAttempt: 3, shuffleQuestions: true, questions: ten }, weight: 1, title: "Random" },
      { quiz: { questions: [{ type: "single" }] }, weight: 1, title: "Plain" },
    ]);
    const id = await startedExam(student, exam.id);
    const first = await opened(student, id, 0);
    const shown = first.quiz.questions as { id: string; position: number }[];
    expect(shown).toHaveLength(3);
    expect(shown.map((question) => question.position)).toEqual([0, 1, 2]);
    const again = await opened(student, id, 0);
    expect(again.quiz.questions.map((question: { id: string }) => question.id)).toEqual(shown.map((question) => question.id));

    const [sectionAttempt] = await sectionQuizAttempts(id);
    expect(sectionAttempt!.formQuestionIds).toEqual(shown.map((question) => question.id));
    // The plain section draws no form.
    const plain = await opened(student, id, 1);
    expect(plain.quiz.questions).toHaveLength(1);
    expect((await sectionQuizAttempts(id)).find((row) => row.quizId === quizzes[1]!.id)).toMatchObject({ formSeed: null, formQuestionIds: null });

    const byId = new Map(quizzes[0]!.questions.map((question) => [question.id, question]));
    const undrawn = quizzes[0]!.questions.find((question) => !shown.some((item) => item.id === question.id))!;
    expect(failure(await saveSection(student, id, 0, [single(undrawn, true)]))).toEqual({ status: 400, error: "question_not_in_form" });
    expect((await saveSection(student, id, 0, shown.map((question) => single(byId.get(question.id)!, true)))).status).toBe(200);
    expect((await submitExam(student, id)).status).toBe(200);
    const scored = (await sectionQuizAttempts(id)).find((row) => row.quizId === quizzes[0]!.id)!;
    expect(scored).toMatchObject({ status: "submitted", scoreHundredths: 300, maxScoreHundredths: 300, scorePctHundredths: 10000 });
  });
});
