import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, insertGroupSource } from "../../helpers/courses";
import { createSchool, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { createGroup, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { enroll, enrollmentRow, insertCompletion, sourcesOf, withoutSchool } from "./helpers";

describe("POST /t/courses/:id/enroll", () => {
  it("201 creates the enrollment with its direct source and progress; 200 for a repeat; no push", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 2] });

    const first = await enroll(student, tree.courseId);
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      id: expect.any(String),
      student_id: student.id,
      course_id: tree.courseId,
      enrolled_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      enrolled_by: null,
      last_accessed_block_id: null,
    });
    const row = await enrollmentRow(tree.courseId, student.id);
    expect(row).toMatchObject({ id: first.body.data.id, removedAt: null, totalBlocks: 4, blocksCompleted: 0, enrolledBy: null });
    expect(await sourcesOf(tree.courseId, student.id)).toEqual([{ key: "direct", kind: "direct", createdBy: null }]);

    const again = await enroll(student, tree.courseId);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(await sourcesOf(tree.courseId, student.id)).toHaveLength(1);
    // A student's own enrollment sends nothing.
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "course.enrolled")).toEqual([]);
  });

  it("200 restores a removed enrollment with its progress and a new direct source", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id, { enrolledAt: Date.now() - 86_400_000 });
    await insertCompletion({ tenantId: school.id, courseId: tree.courseId, lessonId: tree.lessonIds[0]!, blockId: tree.blockIds[0]!, studentId: student.id, enrollmentId });
    await db().delete(schema.enrollmentSources).where(eq(schema.enrollmentSources.enrollmentId, enrollmentId));
    await db().update(schema.enrollments).set({ removedAt: Date.now() - 1000 }).where(eq(schema.enrollments.id, enrollmentId));

    const res = await enroll(student, tree.courseId);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: enrollmentId, enrolled_by: null });
    expect(Date.parse(res.body.data.enrolled_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(await enrollmentRow(tree.courseId, student.id)).toMatchObject({ removedAt: null, blocksCompleted: 1, totalBlocks: 2 });
    expect(await sourcesOf(tree.courseId, student.id)).toEqual([{ key: "direct", kind: "direct", createdBy: null }]);
  });

  it("200 for a student enrolled through a group; the direct source is added so the choice outlives the group", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    await db().delete(schema.enrollmentSources).where(eq(schema.enrollmentSources.enrollmentId, enrollmentId));
    await insertGroupSource(school.id, enrollmentId, tree.courseId, student.id, group.id);

    const res = await enroll(student, tree.courseId);
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(enrollmentId);
    expect((await sourcesOf(tree.courseId, student.id)).map((source) => source.key)).toEqual(["direct", `group:${group.id}`]);
  });

  it("404 course_not_found for a missing, draft, deleted or foreign course; nothing is written", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree((await createSchool()).id);
    for (const courseId of [unknownId(), draft.courseId, deleted.courseId, foreign.courseId]) {
      const res = await enroll(student, courseId);
      expect({ courseId, ...failure(res) }).toEqual({ courseId, status: 404, error: "course_not_found" });
      expect(await enrollmentRow(courseId, student.id)).toBeUndefined();
    }
  });

  it("400 invalid_course_id for a malformed id; 403 tenant_required without a school; staff are refused", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    expect(failure(await enroll(student, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_course_id" });
    const tree = await insertCourseTree(school.id);
    expect(failure(await withoutSchool(student, `/t/courses/${tree.courseId}/enroll`, "POST"))).toEqual({ status: 403, error: "tenant_required" });
    expect(await enrollmentRow(tree.courseId, student.id)).toBeUndefined();
    expect(failure(await enroll(admin, tree.courseId))).toEqual({ status: 403, error: "forbidden" });
  });
});
