import { ASSIGNMENT } from "./assignments.mjs";
import { COURSE } from "./courses.mjs";
import { DAY_MS, DEMO, id, insertOnce } from "./demo.mjs";
import { QUIZ } from "./quizzes.mjs";

/**
 * The point events the demo students' progress earned under a fresh school's rules (lesson 1.00,
 * module 5.00, course 20.00, quiz and assignment 10.00 × score %), and one adjustment by the admin.
 * Each row is written once by its fixed id; the triggers of migration 0012 keep `rating_totals`.
 *
 *   Lola   53.00  4 lessons, 2 modules, the course, the check-up at 100 %, the assignment at 90 %
 *   Sara    7.00  the two lessons of module 1 and the module
 *   Omar    5.00  a bonus from the admin
 *   Timur   0.00  his check-up waits for a grade
 */
export const RATING = {
  omarBonus: id(0x1801),
  omarBonusKey: "demo-omar-forum-help",
};

export function rating({ now }) {
  const [sara, , lola, omar] = DEMO.students;
  const [welcome, handbook, watch, wrapUp] = COURSE.lessons;
  const [firstModule, secondModule] = COURSE.modules;
  let n = 0x1810;
  const award = (student, sourceType, targetId, sourceKey, points, daysAgo) =>
    insertOnce("point_events", {
      id: id(n++), tenant_id: DEMO.tenantId, student_id: student.id, source_type: sourceType, target_id: targetId, source_key: sourceKey,
      points_hundredths: points, rule_id: null, reason: null, actor_user_id: null, awarded_at: now - daysAgo * DAY_MS,
    });
  const completion = (student, sourceType, targetId, points, daysAgo) => award(student, sourceType, targetId, `${sourceType}:${targetId}:${student.id}`, points, daysAgo);
  return [
    completion(sara, "lesson", welcome, 100, 2),
    completion(sara, "lesson", handbook, 100, 2),
    completion(sara, "module", firstModule, 500, 2),
    ...[welcome, handbook, watch, wrapUp].map((lesson) => completion(lola, "lesson", lesson, 100, 4)),
    completion(lola, "module", firstModule, 500, 4),
    completion(lola, "module", secondModule, 500, 3),
    completion(lola, "course", COURSE.id, 2000, 3),
    award(lola, "quiz", QUIZ.id, `quiz_attempt:${QUIZ.lolaAttempt}`, 1000, 3),
    award(lola, "assignment", ASSIGNMENT.id, `submission:${ASSIGNMENT.lolaSubmission}:demo`, 900, 3),
    insertOnce("point_events", {
      id: RATING.omarBonus, tenant_id: DEMO.tenantId, student_id: omar.id, source_type: "manual", target_id: null, source_key: `manual:${RATING.omarBonusKey}`,
      points_hundredths: 500, rule_id: null, reason: "Helped classmates in the forum", actor_user_id: DEMO.admin.id, awarded_at: now - DAY_MS,
    }),
  ];
}
