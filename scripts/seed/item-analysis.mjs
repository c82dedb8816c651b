import { quizFiguresSql } from "../lib/figures.mjs";
import { DAY_MS, DEMO, id, insertOnce } from "./demo.mjs";
import { FORMS } from "./forms.mjs";

/**
 * Practice history on the "Random practice" quiz (scripts/seed/forms.mjs), so its item analysis
 * (docs/decisions/item-analysis.md) shows figures: 48 settled attempts of the four demo students,
 * each drawing 3 of the 6 questions (attempt i draws questions i, i + 1 and i + 3 mod 6), so every
 * question is drawn 24 times, above the 20 a figure needs. Attempt i is right on question q when
 * (5i + 7q) mod 10 < 8 − q: the first question is easy, the last hard. Wrong answers pick the
 * second or third choice in turn. Ids and times are fixed; INSERT … ON CONFLICT DO NOTHING keeps a
 * re-run from writing twice. No course references the quiz, so nobody's progress changes.
 */
export const ITEM_ANALYSIS_ATTEMPTS = 48;

export function itemAnalysis({ now }) {
  const statements = [];
  for (let i = 0; i < ITEM_ANALYSIS_ATTEMPTS; i += 1) {
    const student = DEMO.students[i % DEMO.students.length];
    const drawn = [i % 6, (i + 1) % 6, (i + 3) % 6];
    const answers = drawn.map((q) => ((5 * i + 7 * q) % 10 < 8 - q ? [q, 0] : [q, 1 + (i % 2)]));
    const score = answers.filter(([, choice]) => choice === 0).length * 100;
    const started = now - (10 + (ITEM_ANALYSIS_ATTEMPTS - i) / 4) * DAY_MS;
    const attemptId = id(0x2a00 + i);
    statements.push(insertOnce("quiz_attempts", {
      id: attemptId, tenant_id: DEMO.tenantId, quiz_id: FORMS.quiz, user_id: student.id, actor_role: "student", status: "submitted", exam_attempt_id: null,
      started_at: started, deadline_at: null, submitted_at: started + 240_000, auto_finalized: false,
      score_hundredths: score, max_score_hundredths: 300, score_pct_hundredths: Math.floor((score * 10_000) / 300), pending_review: false, passed: null,
      form_seed: (0x2a00 + i).toString(16).padStart(32, "0"), form_question_ids: JSON.stringify(drawn.map((q) => FORMS.questions[q])), form_shuffle_answers: true,
      created_at: started, updated_at: started + 240_000,
    }));
    answers.forEach(([q, choice], k) => statements.push(insertOnce("quiz_attempt_answers", {
      id: id(0x2b00 + i * 3 + k), tenant_id: DEMO.tenantId, attempt_id: attemptId, quiz_id: FORMS.quiz, user_id: student.id, question_id: FORMS.questions[q],
      payload: JSON.stringify({ answer_ids: [FORMS.answer(q, choice)] }), client_seq: null, awarded_hundredths: choice === 0 ? 100 : 0, is_correct: choice === 0,
      feedback: null, graded_by: null, graded_at: null, saved_at: started + 120_000,
    })));
  }
  // The attempts skip the app's write batches: the quiz's analytics figures are rebuilt here.
  statements.push(quizFiguresSql(DEMO.tenantId, FORMS.quiz));
  return statements;
}
