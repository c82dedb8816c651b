import { COURSE } from "../seed/courses.mjs";
import { id } from "../seed/demo.mjs";
import { PEOPLE, labelOf, pick } from "./lib/tour.mjs";

export const summary = "a student's quiz view, an attempt saved and submitted, the curator's list, a free-text grade and a regrade preview";

const QUIZ = id(0x1001);
const TIMUR_ATTEMPT = id(0x1042);
const FREE_TEXT_QUESTION = id(0x1013);

/**
 * Sara (student1) starts or resumes an attempt and submits it; once her attempts run out the
 * start is refused, which the tour accepts too. The grade of Timur's free-text answer repeats harmlessly.
 */
export async function run(t) {
  const { student1, curator } = PEOPLE;
  const sara = await t.login(student1);
  const paul = await t.login(curator);

  t.section(`${labelOf(student1)} view: no correct answers; the right side of the matching question carries fresh tokens`);
  const quiz = await t.step("The check-up quiz", {
    who: sara,
    path: `/t/quizzes/${QUIZ}`,
    show: (json) =>
      json.data.questions.map((q) => ({
        type: q.type,
        prompt: q.prompt,
        answers: q.answers?.map((a) => a.text),
        match_lefts: q.match_lefts?.map((l) => l.text),
        match_rights: q.match_rights?.map((r) => r.text),
      })),
  });
  t.check(!JSON.stringify(quiz.data.questions).includes("is_correct"), "no question carries is_correct");

  t.section("Start (or resume) an attempt, save an answer for every question, read it back, submit");
  const attempt = await t.step("Start or resume", {
    method: "POST",
    who: sara,
    path: "/t/attempts",
    body: { quiz_id: QUIZ },
    expect: [200, 201, 409],
    show: (json) => json.data ? pick(json.data, ["id", "status", "remaining_seconds"]) : json,
  });
  if (attempt.status === 409) {
    t.check(attempt.error === "max_attempts_reached", "the only refusal expected: every attempt is used");
    t.note(`No attempt left for Sara (${attempt.error}): the earlier runs used them up.`);
  } else {
    const answers = quiz.data.questions.map((q) => ({ question_id: q.id, payload: answerTo(q) }));
    await t.step("Save every answer", { method: "POST", who: sara, path: `/t/attempts/${attempt.data.id}/answers`, body: { answers } });
    await t.step("Read the attempt back", {
      who: sara,
      path: `/t/attempts/${attempt.data.id}`,
      show: (json) => ({ status: json.data.status, remaining_seconds: json.data.remaining_seconds, saved: json.data.saved_answers?.map((a) => a.awarded_points) }),
    });
    await t.step("Submit", { method: "POST", who: sara, path: `/t/attempts/${attempt.data.id}/submit`, show: (json) => pick(json.data, ["status", "score", "max_score", "score_pct", "passed"]) });
    await t.step("Submit again: already submitted", { method: "POST", who: sara, path: `/t/attempts/${attempt.data.id}/submit`, expect: 409 });
  }
  await t.step("A passed attempt completes her quiz block: her course progress", { who: sara, path: `/t/courses/${COURSE.id}`, show: (json) => json.data.progress });

  t.section(`${labelOf(curator)} list, then a grade for Timur's free-text answer (a repeated grade changes nothing)`);
  await t.step("The attempts", {
    who: paul,
    path: `/t/quizzes/${QUIZ}/attempts?limit=5`,
    show: (json) => json.data.attempts.map((a) => pick(a, ["email", "score_pct", "passed", "pending_review"])),
  });
  await t.step("Grade Timur's free-text answer", {
    method: "POST",
    who: paul,
    path: `/t/attempts/${TIMUR_ATTEMPT}/grade`,
    body: { grades: [{ question_id: FREE_TEXT_QUESTION, awarded_points: "1", feedback: "Spelling aside, right." }] },
    show: (json) => pick(json.data, ["score", "score_pct", "passed", "pending_review"]),
  });

  t.section("A regrade previewed: what accepting every answer to the free-text question would change (a dry run writes nothing)");
  await t.step("Regrade, dry run", {
    method: "POST",
    who: paul,
    path: `/t/quiz-questions/${FREE_TEXT_QUESTION}/regrade`,
    body: { mode: "accept_all" },
    show: (json) => ({ dry_run: json.data.dry_run, affected_attempts: json.data.affected_attempts, changes: json.data.changes.slice(0, 3) }),
  });
}

/** The demo check-up's right answers, picked by their texts (the ids of the matching side change per read). */
function answerTo(question) {
  switch (question.type) {
    case "single":
      return { answer_ids: question.answers.filter((a) => a.text === "video").map((a) => a.id) };
    case "multiple":
      return { selected_answer_ids: question.answers.filter((a) => a.text !== "Phone calls").map((a) => a.id) };
    case "free_text":
      return { text: "  demo   SCHOOL " };
    default: {
      const rightFor = { pdf: "A document to read", video: "Moving pictures" };
      return {
        pairs: question.match_lefts.map((left) => ({ left_id: left.id, right_id: question.match_rights.find((right) => right.text === rightFor[left.text]).id })),
      };
    }
  }
}
