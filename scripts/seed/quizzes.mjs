import { upsert } from "../lib/sql.mjs";
import { quizFiguresSql } from "../lib/figures.mjs";
import { COURSE } from "./courses.mjs";
import { DAY_MS, DEMO, id, insertOnce } from "./demo.mjs";

/** The demo quizzes (with finished attempts) and the demo exam. */

export const QUIZ = {
  id: id(0x1001),
  questions: { single: id(0x1011), multiple: id(0x1012), freeText: id(0x1013), matching: id(0x1014) },
  block: id(0xd09),
  lolaAttempt: id(0x1041),
  timurAttempt: id(0x1042),
};

/**
 * A quiz with one question of each type, referenced from the "Watch and read" lesson of the demo
 * course. Lola passed it (her quiz block is completed through it); Timur submitted an attempt whose
 * free-text answer waits for a curator's grade. The matching answers of these finished attempts
 * name the right side by its row id (a live attempt sends the tokens of the student view).
 */
export function quizzes({ now }) {
  const q = QUIZ.questions;
  const [, timur, lola] = DEMO.students;
  const answer = (n) => id(0x1020 + n);
  const match = (n) => id(0x1030 + n);
  const live = { restore: ["tenant_id", "deleted_at"] };
  const statements = [
    upsert(
      "quizzes",
      {
        id: QUIZ.id, tenant_id: DEMO.tenantId, title: "Demo School check-up",
        description: "<p>Four questions about this course: one of each kind.</p>",
        max_attempts: null, time_limit_seconds: 900, passing_score: 60, retake_policy: "best", default_scoring_mode: "all_or_nothing",
        screenshot_protection_enabled: false, created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null,
      },
      { restore: ["tenant_id", "deleted_at", "max_attempts"], touch: "updated_at" },
    ),
  ];
  const questions = [
    { id: q.single, type: "single", prompt: "Which block type plays a film?", position: 0, scoring_mode: null, correct_text: [] },
    { id: q.multiple, type: "multiple", prompt: "Which of these can a lesson hold?", position: 1, scoring_mode: "partial", correct_text: [] },
    { id: q.freeText, type: "free_text", prompt: "Type the name of our school.", position: 2, scoring_mode: null, correct_text: ["Demo School"] },
    { id: q.matching, type: "matching", prompt: "Match each block type with what it shows.", position: 3, scoring_mode: null, correct_text: [] },
  ];
  for (const question of questions) {
    statements.push(upsert("quiz_questions", {
      id: question.id, tenant_id: DEMO.tenantId, quiz_id: QUIZ.id, type: question.type, prompt: question.prompt, image_asset_id: null,
      position: question.position, points_hundredths: 100, scoring_mode: question.scoring_mode, correct_text: JSON.stringify(question.correct_text),
      created_at: now, updated_at: now, deleted_at: null,
    }, live));
  }
  const answers = [
    [1, q.single, "video", true], [2, q.single, "pdf", false], [3, q.single, "embed", false],
    [4, q.multiple, "Text", true], [5, q.multiple, "Images", true], [6, q.multiple, "Phone calls", false],
  ];
  answers.forEach(([n, question, text, correct], i) => statements.push(upsert("quiz_answers", {
    id: answer(n), tenant_id: DEMO.tenantId, quiz_id: QUIZ.id, question_id: question, text, image_asset_id: null, is_correct: correct, position: i % 3, created_at: now, deleted_at: null,
  }, live)));
  const matches = [[1, "pdf", "A document to read"], [2, "video", "Moving pictures"], [3, null, "A phone call"]];
  matches.forEach(([n, left, right], i) => statements.push(upsert("quiz_matches", {
    id: match(n), tenant_id: DEMO.tenantId, quiz_id: QUIZ.id, question_id: q.matching, left_text: left, right_text: right, position: i, created_at: now, deleted_at: null,
  }, live)));
  statements.push(upsert(
    "blocks",
    { id: QUIZ.block, tenant_id: DEMO.tenantId, course_id: COURSE.id, module_id: COURSE.modules[1], lesson_id: COURSE.lessons[2], type: "quiz_ref", payload: JSON.stringify({ quiz_id: QUIZ.id }), ref_id: QUIZ.id, position: 2, created_at: now, updated_at: now, deleted_at: null },
    live,
  ));
  const pairs = { pairs: [{ left_id: match(1), right_id: match(1) }, { left_id: match(2), right_id: match(2) }] };
  const attempts = [
    { id: QUIZ.lolaAttempt, user: lola, n: 0, score: 400, pct: 10000, pending: false, passed: true, answers: [
      [q.single, { answer_ids: [answer(1)] }, 100, true], [q.multiple, { answer_ids: [answer(4), answer(5)] }, 100, true],
      [q.freeText, { text: "demo school" }, 100, true], [q.matching, pairs, 100, true],
    ] },
    // Multiple choice is partial: one of two right answers and no wrong one earns half its point.
    { id: QUIZ.timurAttempt, user: timur, n: 1, score: 150, pct: 3750, pending: true, passed: null, answers: [
      [q.single, { answer_ids: [answer(1)] }, 100, true], [q.multiple, { answer_ids: [answer(4)] }, 50, false],
      [q.freeText, { text: "The demo scool" }, null, null], [q.matching, { pairs: [pairs.pairs[0], { left_id: match(2), right_id: match(3) }] }, 0, false],
    ] },
  ];
  for (const a of attempts) {
    const started = now - (3 - a.n) * DAY_MS;
    statements.push(insertOnce("quiz_attempts", {
      id: a.id, tenant_id: DEMO.tenantId, quiz_id: QUIZ.id, user_id: a.user.id, actor_role: "student", status: "submitted", exam_attempt_id: null,
      started_at: started, deadline_at: started + 900_000, submitted_at: started + 300_000, auto_finalized: false,
      score_hundredths: a.score, max_score_hundredths: 400, score_pct_hundredths: a.pct, pending_review: a.pending, passed: a.passed, created_at: started, updated_at: started + 300_000,
    }));
    a.answers.forEach(([question, payload, awarded, correct], i) => statements.push(insertOnce("quiz_attempt_answers", {
      id: id(0x1050 + a.n * 0x10 + i), tenant_id: DEMO.tenantId, attempt_id: a.id, quiz_id: QUIZ.id, user_id: a.user.id, question_id: question,
      payload: JSON.stringify(payload), client_seq: null, awarded_hundredths: awarded, is_correct: correct, feedback: null, graded_by: null, graded_at: null, saved_at: started + 200_000,
    })));
  }
  // Lola's pass completed her quiz block (the enrollments section recounts her progress).
  statements.push(upsert(
    "block_completions",
    { id: id(0x1061), tenant_id: DEMO.tenantId, course_id: COURSE.id, lesson_id: COURSE.lessons[2], block_id: QUIZ.block, student_id: lola.id, enrollment_id: id(0xe03), source: "quiz", completed_at: now - 3 * DAY_MS + 300_000 },
    { key: ["block_id", "student_id"] },
  ));
  // The attempts above skip the app's write batches: their analytics figures are rebuilt here.
  statements.push(quizFiguresSql(DEMO.tenantId, QUIZ.id));
  return statements;
}

export const EXAM = {
  id: id(0x1101),
  sections: [id(0x1111), id(0x1112)],
  quiz: id(0x1002),
  questions: [id(0x1021), id(0x1022)],
};

/**
 * A published two-section exam (30 minutes, pass mark 50 %): the demo course's check-up quiz
 * (weight 2) and a short quiz of two questions about the school (weight 1). Nobody has taken it.
 */
export function exams({ now }) {
  const live = { restore: ["tenant_id", "deleted_at"] };
  const answer = (n) => id(0x1060 + n);
  const statements = [
    upsert(
      "quizzes",
      {
        id: EXAM.quiz, tenant_id: DEMO.tenantId, title: "School rules", description: "<p>Two questions about how the school works.</p>",
        max_attempts: null, time_limit_seconds: null, passing_score: null, retake_policy: "best", default_scoring_mode: "all_or_nothing",
        screenshot_protection_enabled: false, created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null,
      },
      live,
    ),
  ];
  const questions = [
    { id: EXAM.questions[0], prompt: "Where do you find your courses?", answers: [["In the app's course list", true], ["In the post", false]] },
    { id: EXAM.questions[1], prompt: "Who checks your free-text answers?", answers: [["A curator", true], ["Nobody", false]] },
  ];
  questions.forEach((question, q) => {
    statements.push(upsert("quiz_questions", {
      id: question.id, tenant_id: DEMO.tenantId, quiz_id: EXAM.quiz, type: "single", prompt: question.prompt, image_asset_id: null,
      position: q, points_hundredths: 100, scoring_mode: null, correct_text: "[]", created_at: now, updated_at: now, deleted_at: null,
    }, live));
    question.answers.forEach(([text, correct], n) => statements.push(upsert("quiz_answers", {
      id: answer(q * 2 + n), tenant_id: DEMO.tenantId, quiz_id: EXAM.quiz, question_id: question.id, text, image_asset_id: null, is_correct: correct, position: n, created_at: now, deleted_at: null,
    }, live)));
  });
  statements.push(upsert(
    "exams",
    {
      id: EXAM.id, tenant_id: DEMO.tenantId, title: "Demo School entrance exam", description: "<p>Two sections; the first counts double.</p>",
      time_limit_seconds: 1800, passing_score: 50, max_attempts: null, retake_policy: "best", screenshot_protection_enabled: false,
      status: "published", published_at: now, created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null,
    },
    { restore: ["tenant_id", "deleted_at", "status", "max_attempts"], touch: "updated_at" },
  ));
  const sections = [
    { id: EXAM.sections[0], quiz: QUIZ.id, title: "Course check-up", weight: 2 },
    { id: EXAM.sections[1], quiz: EXAM.quiz, title: "School rules", weight: 1 },
  ];
  sections.forEach((section, position) => statements.push(upsert("exam_sections", {
    id: section.id, tenant_id: DEMO.tenantId, exam_id: EXAM.id, quiz_id: section.quiz, title: section.title, position, weight: section.weight, created_at: now, updated_at: now, deleted_at: null,
  }, { restore: ["tenant_id", "deleted_at", "quiz_id", "weight"] })));
  return statements;
}

/**
 * Sara, Timur and Lola are enrolled directly in the demo course (Omar is left to enroll himself in
 * the README tour): Sara finished module 1, Timur opened the first lesson, Lola completed the course.
 * Progress is recounted from the completions the way the Worker recounts it, only where it drifted.
 */
