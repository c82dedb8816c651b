import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, signedIn } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { insertAssignment, insertSubmission } from "../assignments/helpers";
import { assignmentCourse, draftOf, reopen, review, submissionSchool, submit } from "./helpers";

/**
 * What a submission does besides its own row: #47 to the student's curators (or the admins) on
 * submit, #48/#49 to the student on review, #50 on reopen, each with its variables; submitting
 * completes the student's `assignment_ref` blocks naming the assignment (source `assignment`), and
 * `POST /blocks/:id/complete` accepts such a block once a submission is handed in.
 */

const assignmentEvents = async (tenantId: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode.startsWith("assignment."));

async function completionsOf(studentId: string) {
  return db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, studentId));
}

const complete = (member: Parameters<typeof as>[0], blockId: string) => as(member, `/t/blocks/${blockId}/complete`, { method: "POST" });

async function named(userId: string, firstName: string, lastName: string) {
  await db().update(schema.users).set({ firstName, lastName }).where(eq(schema.users.id, userId));
}

describe("submission events", () => {
  it("#47 assignment.submitted: the student's individual and group curators, with student_name, assignment_title and attempt", async () => {
    const { school, admin, student, assignment } = await submissionSchool({ title: "Essay" });
    await named(student.id, "Dilnoza", "Karimova");
    const curator = await signedIn(school, curatorWith({}));
    const groupCurator = await signedIn(school, curatorWith({}));
    const unrelated = await signedIn(school, curatorWith({}));
    await assignIndividualCurator(student.id, curator.id);
    const group = await createGroup(school.id);
    await addMember(group, student.id);
    await addGroupCurator(group, groupCurator.id);
    for (const member of [admin, student, curator, groupCurator, unrelated]) await addPushDevice(school.id, member.id);

    const draft = await draftOf(student, assignment.id);
    expect(await assignmentEvents(school.id)).toEqual([]);
    await submit(student, draft.id);
    const rows = await assignmentEvents(school.id);
    expect(rows.map((row) => [row.eventCode, row.userId]).sort()).toEqual(
      [
        ["assignment.submitted", curator.id],
        ["assignment.submitted", groupCurator.id],
      ].sort(),
    );
    expect(rows[0]!.data).toMatchObject({ student_name: "Dilnoza Karimova", assignment_title: "Essay", attempt: 1, submission_id: draft.id });
    expect(rows[0]!.aggregateId).toBe(draft.id);

    // Reopened and handed in again: told again.
    await reopen(admin, draft.id);
    await submit(student, draft.id);
    expect((await assignmentEvents(school.id)).filter((row) => row.eventCode === "assignment.submitted")).toHaveLength(4);
  });

  it("#47 goes to the admins when the student has no curator", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    const otherAdmin = await signedIn(school, { role: "admin" });
    for (const member of [admin, otherAdmin, student]) await addPushDevice(school.id, member.id);
    await submit(student, (await draftOf(student, assignment.id)).id);
    expect((await assignmentEvents(school.id)).map((row) => [row.eventCode, row.userId]).sort()).toEqual(
      [
        ["assignment.submitted", admin.id],
        ["assignment.submitted", otherAdmin.id],
      ].sort(),
    );
  });

  it("#48 accepted, #49 rejected (attempts_left, ∞ when unlimited) and #50 reopened go to the student with their variables", async () => {
    const { school, admin, student, assignment } = await submissionSchool({ title: "Lab report", maxScoreHundredths: 5_050, maxAttempts: 3 });
    const unlimited = await insertAssignment(school.id, { title: "Journal", maxAttempts: null });
    for (const member of [admin, student]) await addPushDevice(school.id, member.id);
    const studentEvents = async () => (await assignmentEvents(school.id)).filter((row) => row.userId === student.id);

    const first = await draftOf(student, assignment.id);
    await submit(student, first.id);
    await review(admin, first.id, { status: "rejected", feedback: "Add the graphs." });
    const second = await draftOf(student, assignment.id);
    await submit(student, second.id);
    await review(admin, second.id, { status: "accepted", score: "42.5", feedback: "Well done." });
    const journal = await draftOf(student, unlimited.id);
    await submit(student, journal.id);
    await review(admin, journal.id, { status: "rejected" });
    await reopen(admin, journal.id);

    const rows = await studentEvents();
    expect(rows.map((row) => [row.eventCode, row.aggregateId, row.data])).toEqual([
      ["assignment.rejected", first.id, { assignment_title: "Lab report", feedback: "Add the graphs.", attempts_left: "2", submission_id: first.id, event_code: "assignment.rejected" }],
      ["assignment.accepted", second.id, { assignment_title: "Lab report", score: "42.50", max_score: "50.50", feedback: "Well done.", submission_id: second.id, event_code: "assignment.accepted" }],
      ["assignment.rejected", journal.id, { assignment_title: "Journal", feedback: "", attempts_left: "∞", submission_id: journal.id, event_code: "assignment.rejected" }],
      ["assignment.reopened", journal.id, { assignment_title: "Journal", submission_id: journal.id, event_code: "assignment.reopened" }],
    ]);
    // The reviewer is never told of their own verdict.
    expect((await assignmentEvents(school.id)).filter((row) => row.userId === admin.id && row.eventCode !== "assignment.submitted")).toEqual([]);
  });

  it("refused transitions send nothing", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    await addPushDevice(school.id, student.id);
    const accepted = await insertSubmission(school.id, assignment.id, student.id, { status: "accepted", scoreHundredths: 100 });
    expect(failure(await review(admin, accepted, { status: "rejected" }))).toEqual({ status: 409, error: "submission_not_submitted" });
    expect(failure(await reopen(admin, accepted))).toEqual({ status: 409, error: "submission_already_accepted" });
    expect(await assignmentEvents(school.id)).toEqual([]);
  });
});

describe("completion of assignment_ref blocks", () => {
  it("submitting completes the student's blocks naming the assignment (source assignment) and recounts, with the course's pushes", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    const curator = await signedIn(school, curatorWith({}));
    await assignIndividualCurator(student.id, curator.id);
    await addPushDevice(school.id, curator.id);
    const tree = await assignmentCourse(school.id, assignment.id, [student.id]);
    const notEnrolled = await assignmentCourse(school.id, assignment.id);
    const otherAssignment = await insertAssignment(school.id);
    const other = await assignmentCourse(school.id, otherAssignment.id, [student.id]);

    const draft = await draftOf(student, assignment.id);
    expect(await completionsOf(student.id)).toEqual([]);
    await submit(student, draft.id);
    const rows = await completionsOf(student.id);
    expect(rows.map((row) => [row.blockId, row.source])).toEqual([[tree.blockIds[0], "assignment"]]);
    expect(rows.some((row) => row.courseId === notEnrolled.courseId || row.courseId === other.courseId)).toBe(false);
    const [enrollment] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.courseId, tree.courseId));
    expect([enrollment!.blocksCompleted, enrollment!.totalBlocks, enrollment!.completedAt !== null]).toEqual([1, 1, true]);
    const course = (await outboxRows(school.id)).filter((row) => row.eventCode.startsWith("course."));
    expect(course.map((row) => [row.eventCode, row.userId, row.aggregateId])).toEqual([["course.student_completed", curator.id, tree.courseId]]);

    // Reopened: the completion stays; handed in again, nothing more.
    await reopen(admin, draft.id);
    expect(await completionsOf(student.id)).toHaveLength(1);
    await submit(student, draft.id);
    expect(await completionsOf(student.id)).toHaveLength(1);
  });

  it("POST /blocks/:id/complete: 422 assignment_not_submitted with no submission or a draft; 200 once one is submitted, accepted or rejected", async () => {
    const { school, student } = await submissionSchool();
    for (const status of ["submitted", "accepted", "rejected"] as const) {
      const assignment = await insertAssignment(school.id);
      const tree = await assignmentCourse(school.id, assignment.id, [student.id]);
      const block = tree.blockIds[0]!;
      expect(failure(await complete(student, block))).toEqual({ status: 422, error: "assignment_not_submitted" });
      const id = await insertSubmission(school.id, assignment.id, student.id, { status: "draft" });
      expect(failure(await complete(student, block))).toEqual({ status: 422, error: "assignment_not_submitted" });
      await db().update(schema.submissions).set({ status }).where(eq(schema.submissions.id, id));
      const res = await complete(student, block);
      expect({ status, code: res.status }).toEqual({ status, code: 200 });
      const rows = await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.blockId, block));
      expect(rows.map((row) => [row.studentId, row.source])).toEqual([[student.id, "assignment"]]);
    }
  });

  it("another student's submission does not complete the block", async () => {
    const { school, student, assignment } = await submissionSchool();
    const classmate = await signedIn(school, { role: "student" });
    const tree = await assignmentCourse(school.id, assignment.id, [student.id, classmate.id]);
    await submit(classmate, (await draftOf(classmate, assignment.id)).id);
    expect(failure(await complete(student, tree.blockIds[0]!))).toEqual({ status: 422, error: "assignment_not_submitted" });
  });
});
