import { upsert } from "../lib/sql.mjs";
import { DEMO, id } from "./demo.mjs";

/**
 * A practice quiz with a random form (05 section 2, docs/decisions/quizzes.md, "Random forms"):
 * six single-choice questions, three drawn per attempt, questions and answers shuffled. No course
 * references it, so no student's progress changes; staff try it (`npm run tour -- forms`).
 */

export const FORMS = {
  quiz: id(0x1501),
  questions: [0, 1, 2, 3, 4, 5].map((n) => id(0x1511 + n)),
  answer: (question, n) => id(0x1521 + question * 3 + n),
};

const QUESTIONS = [
  ["Where do you find your courses?", ["In the app's course list", "In the post", "On a poster"]],
  ["Who checks your free-text answers?", ["A curator", "Nobody", "The app's spell checker"]],
  ["What happens when an exam's time is up?", ["It is handed in with what you saved", "It waits for you", "It is deleted"]],
  ["What does a learning path do?", ["Opens its courses in order", "Prints certificates", "Changes your password"]],
  ["When can you retake a quiz?", ["While attempts are left", "Never", "Only on Mondays"]],
  ["What does a push tell you?", ["That something happened in your school", "The weather", "Nothing"]],
];

export function forms({ now }) {
  const live = { restore: ["tenant_id", "deleted_at"] };
  const statements = [
    upsert(
      "quizzes",
      {
        id: FORMS.quiz, tenant_id: DEMO.tenantId, title: "Random practice", description: "<p>Three of six questions, in a random order, for every attempt.</p>",
        max_attempts: null, time_limit_seconds: null, passing_score: null, retake_policy: "best", default_scoring_mode: "all_or_nothing",
        screenshot_protection_enabled: false, questions_per_attempt: 3, shuffle_questions: true, shuffle_answers: true,
        created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null,
      },
      { restore: ["tenant_id", "deleted_at", "questions_per_attempt", "shuffle_questions", "shuffle_answers"], touch: "updated_at" },
    ),
  ];
  QUESTIONS.forEach(([prompt, answers], q) => {
    statements.push(upsert("quiz_questions", {
      id: FORMS.questions[q], tenant_id: DEMO.tenantId, quiz_id: FORMS.quiz, type: "single", prompt, image_asset_id: null,
      position: q, points_hundredths: 100, scoring_mode: null, correct_text: "[]", created_at: now, updated_at: now, deleted_at: null,
    }, live));
    answers.forEach((text, n) => statements.push(upsert("quiz_answers", {
      id: FORMS.answer(q, n), tenant_id: DEMO.tenantId, quiz_id: FORMS.quiz, question_id: FORMS.questions[q], text, image_asset_id: null,
      is_correct: n === 0, position: n, created_at: now, deleted_at: null,
    }, live)));
  });
  return statements;
}
