import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, insertGroupSource } from "../../helpers/courses";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { assignIndividualCurator, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { enrollmentRow, insertCompletion, sourcesOf, unenroll } from "./helpers";

describe("DELETE /t/courses/:id/enrollments/:student_id", () => {
  it("204 removes the direct source and closes the enrollment, keeping its progress; a repeat is 404", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    const student = await createUser(school.id, { role: "student" });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 2 });
    await insertCompletion({ tenantId: school.id, courseId: tree.courseId, lessonId: tree.lessonIds[0]!, blockId: tree.blockIds[0]!, studentId: student.id, enrollmentId });
    await db().update(schema.enrollments).set({ blocksCompleted: 1 }).where(eq(schema.enrollments.id, enrollmentId));

    const res = await unenroll(admin, tree.courseId, student.id.toUpperCase());
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    const row = await enrollmentRow(tree.courseId, student.id);
    expect(row!.removedAt).toEqual(expect.any(Number));
    expect(row).toMatchObject({ blocksCompleted: 1, totalBlocks: 2 });
    expect(await sourcesOf(tree.courseId, student.id)).toEqual([]);
    expect(failure(await unenroll(admin, tree.courseId, student.id))).toEqual({ status: 404, error: "enrollment_not_found" });
  });

  it("removes a legacy source too; with a group source left the enrollment stays active (204)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const legacy = await createUser(school.id, { role: "student" });
    const legacyId = await insertEnrollment(school.id, tree.courseId, legacy.id);
    await db().update(schema.enrollmentSources).set({ kind: "legacy", sourceKey: "legacy" }).where(eq(schema.enrollmentSources.enrollmentId, legacyId));
    expect((await unenroll(admin, tree.courseId, legacy.id)).status).toBe(204);
    expect((await enrollmentRow(tree.courseId, legacy.id))!.removedAt).not.toBeNull();

    const both = await createUser(school.id, { role: "student" });
    const group = await createGroup(school.id);
    const bothId = await insertEnrollment(school.id, tree.courseId, both.id);
    await insertGroupSource(school.id, bothId, tree.courseId, both.id, group.id);
    expect((await unenroll(admin, tree.courseId, both.id)).status).toBe(204);
    expect((await enrollmentRow(tree.courseId, both.id))!.removedAt).toBeNull();
    expect((await sourcesOf(tree.courseId, both.id)).map((source) => source.key)).toEqual([`group:${group.id}`]);

    // Now only the group holds it.
    expect(failure(await unenroll(admin, tree.courseId, both.id))).toEqual({ status: 409, error: "enrollment_managed_by_group" });
    expect((await enrollmentRow(tree.courseId, both.id))!.removedAt).toBeNull();
    expect(await sourcesOf(tree.courseId, both.id)).toHaveLength(1);
  });

  it("404 enrollment_not_found: not enrolled, removed, a foreign or deleted course, a restricted curator's non-own student", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const student = await createUser(school.id, { role: "student" });
    const own = await createUser(school.id, { role: "student" });
    expect(failure(await unenroll(admin, tree.courseId, student.id))).toEqual({ status: 404, error: "enrollment_not_found" });
    expect(failure(await unenroll(admin, tree.courseId, unknownId()))).toEqual({ status: 404, error: "enrollment_not_found" });
    expect(failure(await unenroll(admin, unknownId(), student.id))).toEqual({ status: 404, error: "enrollment_not_found" });

    const otherSchool = await createSchool();
    const foreignTree = await insertCourseTree(otherSchool.id);
    const foreigner = await createUser(otherSchool.id, { role: "student" });
    await insertEnrollment(otherSchool.id, foreignTree.courseId, foreigner.id);
    expect(failure(await unenroll(admin, foreignTree.courseId, foreigner.id))).toEqual({ status: 404, error: "enrollment_not_found" });
    expect((await enrollmentRow(foreignTree.courseId, foreigner.id))!.removedAt).toBeNull();

    const deleted = await insertCourseTree(school.id);
    await insertEnrollment(school.id, deleted.courseId, student.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    expect(failure(await unenroll(admin, deleted.courseId, student.id))).toEqual({ status: 404, error: "enrollment_not_found" });

    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    await assignIndividualCurator(own.id, curator.id);
    await insertEnrollment(school.id, tree.courseId, student.id);
    await insertEnrollment(school.id, tree.courseId, own.id);
    expect(failure(await unenroll(curator, tree.courseId, student.id))).toEqual({ status: 404, error: "enrollment_not_found" });
    expect((await enrollmentRow(tree.courseId, student.id))!.removedAt).toBeNull();
    expect((await unenroll(curator, tree.courseId, own.id)).status).toBe(204);
  });

  it("400 invalid_course_id and invalid_student_id for malformed ids (the course's is checked first)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    expect(failure(await unenroll(admin, "nope", unknownId()))).toEqual({ status: 400, error: "invalid_course_id" });
    expect(failure(await unenroll(admin, "nope", "nope"))).toEqual({ status: 400, error: "invalid_course_id" });
    expect(failure(await unenroll(admin, tree.courseId, "nope"))).toEqual({ status: 400, error: "invalid_student_id" });
  });
});
