import { upsert } from "../lib/sql.mjs";
import { COURSE } from "./courses.mjs";
import { DAY_MS, DEMO, id, insertOnce } from "./demo.mjs";

/** The demo assignment, its attachment and group targets, its block in the demo course, and two submissions. */

export const ASSIGNMENT = {
  id: id(0x1301),
  attachment: id(0x1311),
  block: id(0xd0a),
  saraSubmission: id(0x1321),
  lolaSubmission: id(0x1322),
};

/**
 * "Your first week" (max score 100, three attempts, the handout attached) is set for the Morning and
 * Evening groups and sits in the lesson "Read the handbook". Sara has handed it in and waits for a
 * review; Lola's was accepted with 90 points. Both completed the block by submitting.
 */
export function assignments({ now }) {
  const [sara, , lola] = DEMO.students;
  const live = { restore: ["tenant_id", "deleted_at"] };
  const handbook = COURSE.lessons[1];
  const statements = [
    upsert(
      "assignments",
      {
        id: ASSIGNMENT.id, tenant_id: DEMO.tenantId, title: "Your first week",
        instructions: "<p>Write a few lines about what you learned in the first lessons. Attach a photo of your notes if you like.</p>",
        max_score_hundredths: 10000, max_attempts: 3, screenshot_protection_enabled: false, created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null,
      },
      { ...live, touch: "updated_at" },
    ),
    upsert(
      "assignment_attachments",
      { id: ASSIGNMENT.attachment, tenant_id: DEMO.tenantId, assignment_id: ASSIGNMENT.id, media_asset_id: DEMO.handoutAssetId, position: 0, created_at: now },
    ),
    ...[DEMO.groupId, DEMO.eveningGroupId].map((groupId) =>
      upsert("assignment_group_targets", { tenant_id: DEMO.tenantId, assignment_id: ASSIGNMENT.id, group_id: groupId, created_at: now }, { key: ["tenant_id", "assignment_id", "group_id"] }),
    ),
    upsert(
      "blocks",
      {
        id: ASSIGNMENT.block, tenant_id: DEMO.tenantId, course_id: COURSE.id, module_id: COURSE.modules[0], lesson_id: handbook, type: "assignment_ref",
        payload: JSON.stringify({ assignment_id: ASSIGNMENT.id }), ref_id: ASSIGNMENT.id, position: 2, created_at: now, updated_at: now, deleted_at: null,
      },
      live,
    ),
  ];
  const handedIn = [
    { id: ASSIGNMENT.saraSubmission, student: sara, enrollment: id(0xe01), days: 2, status: "submitted", text: "<p>I found the handbook and read the rules on attempts.</p>", score: null, feedback: null, grader: null },
    {
      id: ASSIGNMENT.lolaSubmission, student: lola, enrollment: id(0xe03), days: 4, status: "accepted", text: "<p>The first week taught me how lessons, quizzes and exams fit together.</p>",
      score: 9000, feedback: "Clear and complete.", grader: DEMO.restrictedCurator.id,
    },
  ];
  for (const s of handedIn) {
    const submittedAt = now - s.days * DAY_MS;
    statements.push(
      insertOnce("submissions", {
        id: s.id, tenant_id: DEMO.tenantId, assignment_id: ASSIGNMENT.id, student_id: s.student.id, attempt: 1, status: s.status, text: s.text,
        score_hundredths: s.score, feedback: s.feedback, graded_by_id: s.grader, graded_at: s.grader ? submittedAt + DAY_MS : null,
        submitted_at: submittedAt, reopened_at: null, created_at: submittedAt - 3_600_000, updated_at: s.grader ? submittedAt + DAY_MS : submittedAt,
      }),
      upsert(
        "block_completions",
        { id: id(0x1330 + s.days), tenant_id: DEMO.tenantId, course_id: COURSE.id, lesson_id: handbook, block_id: ASSIGNMENT.block, student_id: s.student.id, enrollment_id: s.enrollment, source: "assignment", completed_at: submittedAt },
        { key: ["block_id", "student_id"] },
      ),
    );
  }
  return statements;
}
