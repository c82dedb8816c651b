import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { assignIndividualCurator, curatorWith, signedIn } from "../../helpers/users";
import { addPushDevice } from "../../notifications/helpers";
import { assignmentCourse, draftOf, submissionSchool, submit } from "./helpers";

/**
 * `submission.submitted` and its contributors (docs/domain-events.md) through HTTP: the submit's
 * batch carries the completion and recount (`courses.reference-completion`), then the course
 * pushes (`courses.completion-pushes`), then the lesson, module and course awards
 * (`rating.completion-awards`); a repeated submit is refused and writes nothing from any of them.
 */

async function rowsOf(tenantId: string, studentId: string) {
  const completions = await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, studentId));
  const points = await db().select().from(schema.pointEvents).where(eq(schema.pointEvents.studentId, studentId));
  const outbox = await db().select().from(schema.notificationOutbox).where(eq(schema.notificationOutbox.tenantId, tenantId));
  const [enrollment] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, studentId));
  return {
    completions: completions.map((row) => [row.blockId, row.source]),
    points: points.map((row) => row.sourceType).sort(),
    outbox: outbox.map((row) => row.eventCode).sort(),
    completedAt: enrollment?.completedAt ?? null,
  };
}

describe("submission.submitted and its contributors", () => {
  it("one submit writes the completion, the course's completion, its pushes and its awards; a repeated submit writes nothing more", async () => {
    const base = await submissionSchool();
    const curator = await signedIn(base.school, curatorWith({}));
    await assignIndividualCurator(base.student.id, curator.id);
    await addPushDevice(base.school.id, curator.id);
    const tree = await assignmentCourse(base.school.id, base.assignment.id, [base.student.id]);
    const draft = await draftOf(base.student, base.assignment.id);

    const first = await submit(base.student, draft.id);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const after = await rowsOf(base.school.id, base.student.id);
    expect(after.completions).toEqual([[tree.blockIds[0], "assignment"]]);
    expect(after.completedAt).not.toBeNull();
    // The student acted: #33 is not theirs to hear; the curator hears #34 and #47.
    expect(after.outbox).toEqual(["assignment.submitted", "course.student_completed"]);
    expect(after.points).toEqual(["course", "lesson", "module"]);

    const again = await submit(base.student, draft.id);
    expect(again.status).toBe(409);
    expect(await rowsOf(base.school.id, base.student.id)).toEqual(after);
  });
});
