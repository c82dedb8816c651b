import { id } from "../seed/demo.mjs";
import { EXAM as SEEDED_EXAM } from "../seed/quizzes.mjs";
import { PEOPLE, label, labelOf, pick } from "./lib/tour.mjs";

export const summary = "a student's exam: sections in any order, answers, a weighted final score; the exam's analytics; a regrade preview of a section's question";

const EXAM = id(0x1101);

/**
 * Omar (student4) starts an attempt (or resumes the one he left) and submits it. Once his attempts
 * run out a new start is refused, which the tour accepts and says so.
 */
export async function run(t) {
  const { student4, curator } = PEOPLE;
  const omar = await t.login(student4);
  const paul = await t.login(curator);

  t.section(`${labelOf(student4)} view of the exam, then an attempt (or the one he left in progress)`);
  await t.step("The exam", {
    who: omar,
    path: `/t/exams/${EXAM}`,
    show: (json) => ({ ...pick(json.data, ["title", "time_limit_seconds", "attempts_count"]), sections: json.data.sections.map((s) => pick(s, ["title", "weight", "question_count"])) }),
  });
  const attempt = await t.step("Start or resume", { method: "POST", who: omar, path: "/t/exam-attempts", body: { exam_id: EXAM }, expect: [200, 201, 409], show: (json) => json.data ? pick(json.data, ["id", "status", "deadline_at"]) : json });
  if (attempt.status === 409) {
    t.check(attempt.error === "max_exam_attempts_reached", "the only refusal expected: every attempt is used");
    t.note(`No attempt left for Omar (${attempt.error}): the earlier runs used them up.`);
  } else {
    const ea = attempt.data.id;
    t.section("Section 2 first (school rules): the first answer of each question is right");
    const section1 = await t.step("Open section 2", { method: "POST", who: omar, path: `/t/exam-attempts/${ea}/go`, body: { section_index: 1 }, show: (json) => json.data.quiz.questions.map((q) => ({ prompt: q.prompt, answers: q.answers?.map((a) => a.text) })) });
    await t.step("Answer it", {
      method: "POST",
      who: omar,
      path: `/t/exam-attempts/${ea}/sections/1/answers`,
      body: { answers: section1.data.quiz.questions.map((q) => ({ question_id: q.id, payload: { answer_ids: [q.answers[0].id] } })) },
    });

    t.section("Section 1 (the check-up): only its single-choice question answered");
    const section0 = await t.step("Open section 1", { method: "POST", who: omar, path: `/t/exam-attempts/${ea}/go`, body: { section_index: 0 }, show: (json) => json.data.quiz.questions.map((q) => pick(q, ["type", "prompt"])) });
    await t.step("Answer it", {
      method: "POST",
      who: omar,
      path: `/t/exam-attempts/${ea}/sections/0/answers`,
      body: {
        answers: section0.data.quiz.questions
          .filter((q) => q.type === "single")
          .map((q) => ({ question_id: q.id, payload: { answer_ids: q.answers.filter((a) => a.text === "video").map((a) => a.id) } })),
      },
    });

    t.section("25 % of section 1 (weight 2) and 100 % of section 2 (weight 1): 1.50 of 3.00, exactly the pass mark");
    const result = await t.step("Submit", {
      method: "POST",
      who: omar,
      path: `/t/exam-attempts/${ea}/submit`,
      show: (json) => ({ ...pick(json.data, ["status", "final_score", "final_max_score", "final_score_pct", "passed"]), sections: json.data.sections.map((s) => pick(s, ["title", "score", "max_score"])) }),
    });
    t.check(result.data.passed === true, "the attempt passed");
  }
  await t.step("His result on the exam", { who: omar, path: `/t/exams/${EXAM}`, show: (json) => ({ result: pick(json.data.result ?? {}, ["score_pct", "passed"]), attempts_count: json.data.attempts_count }) });
  await t.step(`The exam's analytics (${label(curator)})`, {
    who: paul,
    path: `/t/exams/${EXAM}/analytics`,
    show: (json) => ({ ...pick(json.data, ["attempt_count", "submitted_count", "passed_count", "avg_score_pct"]), per_section: json.data.per_section.map((s) => pick(s, ["title", "avg_score_pct"])) }),
  });

  t.section(`A wrong key found after the exam, previewed by ${label(curator)}: the first "School rules" question keyed to its second answer; the finished exam attempts whose final score or pass would change (a dry run writes nothing)`);
  await t.step("Regrade, dry run", {
    method: "POST",
    who: paul,
    path: `/t/quiz-questions/${SEEDED_EXAM.questions[0]}/regrade`,
    // The seed's answers of that question are id(0x1060) (keyed right) and id(0x1061).
    body: { mode: "new_key", correct_answer_ids: [id(0x1061)] },
    show: (json) => ({ dry_run: json.data.dry_run, affected_attempts: json.data.affected_attempts, changes: json.data.changes.slice(0, 3) }),
  });
}
