import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { countingD1 } from "../../helpers/d1-counter";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { bulk, enrollmentRow, insertCompletion, sourcesOf } from "./helpers";
import { fixtureD1, schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

describe("POST /t/courses/:id/enroll/bulk", () => {
  it("enrolls new and removed students (restored with progress) and says why the others were skipped", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 3] });
    const fresh = await createUser(school.id, { role: "student" });
    const already = await createUser(school.id, { role: "student" });
    const returning = await createUser(school.id, { role: "student" });
    const staff = await createUser(school.id, { role: "curator" });
    const deleted = await createUser(school.id, { role: "student" });
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, deleted.id));
    const foreigner = await createUser((await createSchool()).id, { role: "student" });
    const missing = unknownId();
    await insertEnrollment(school.id, tree.courseId, already.id);
    const oldId = await insertEnrollment(school.id, tree.courseId, returning.id);
    await insertCompletion({ tenantId: school.id, courseId: tree.courseId, lessonId: tree.lessonIds[0]!, blockId: tree.blockIds[0]!, studentId: returning.id, enrollmentId: oldId });
    await db().delete(schema.enrollmentSources).where(eq(schema.enrollmentSources.enrollmentId, oldId));
    await db().update(schema.enrollments).set({ removedAt: Date.now() - 5000 }).where(eq(schema.enrollments.id, oldId));

    const res = await bulk(admin, tree.courseId, [fresh.id, already.id, returning.id.toUpperCase(), staff.id, deleted.id, foreigner.id, missing, fresh.id]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      enrolled: [fresh.id, returning.id],
      skipped: [
        { student_id: already.id, reason: "already_enrolled" },
        { student_id: staff.id, reason: "user_not_found" },
        { student_id: deleted.id, reason: "user_not_found" },
        { student_id: foreigner.id, reason: "wrong_tenant" },
        { student_id: missing, reason: "user_not_found" },
      ],
      enrolled_count: 2,
      skipped_count: 5,
    });
    expect(await enrollmentRow(tree.courseId, fresh.id)).toMatchObject({ enrolledBy: admin.id, removedAt: null, totalBlocks: 3, blocksCompleted: 0 });
    expect(await enrollmentRow(tree.courseId, returning.id)).toMatchObject({ id: oldId, enrolledBy: admin.id, removedAt: null, totalBlocks: 3, blocksCompleted: 1 });
    expect(await sourcesOf(tree.courseId, fresh.id)).toEqual([{ key: "direct", kind: "direct", createdBy: admin.id }]);
    expect(await sourcesOf(tree.courseId, returning.id)).toEqual([{ key: "direct", kind: "direct", createdBy: admin.id }]);
    // The already enrolled student's enrollment is left as it was.
    expect(await enrollmentRow(tree.courseId, already.id)).toMatchObject({ enrolledBy: null });
    for (const id of [staff.id, deleted.id, foreigner.id, missing]) expect(await enrollmentRow(tree.courseId, id)).toBeUndefined();

    // A repeat enrolls nobody.
    const again = await bulk(admin, tree.courseId, [fresh.id, returning.id]);
    expect(again.body.data).toMatchObject({ enrolled: [], enrolled_count: 0, skipped_count: 2 });
  });

  it("a draft course skips every id as course_not_published and writes nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const student = await createUser(school.id, { role: "student" });
    const missing = unknownId();
    const res = await bulk(admin, draft.courseId, [student.id, missing]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      enrolled: [],
      skipped: [
        { student_id: student.id, reason: "course_not_published" },
        { student_id: missing, reason: "course_not_published" },
      ],
      enrolled_count: 0,
      skipped_count: 2,
    });
    expect(await enrollmentRow(draft.courseId, student.id)).toBeUndefined();
  });

  it("a restricted curator enrolls only their own students: the others are not_in_scope, enrolled or not", async () => {
    const { school } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const individual = await createUser(school.id, { role: "student" });
    const member = await createUser(school.id, { role: "student" });
    const stranger = await createUser(school.id, { role: "student" });
    const enrolledStranger = await createUser(school.id, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, enrolledStranger.id);
    await assignIndividualCurator(individual.id, curator.id);
    const group = await createGroup(school.id);
    await addMember(group, member.id);
    await addGroupCurator(group, curator.id);

    const res = await bulk(curator, tree.courseId, [individual.id, member.id, stranger.id, enrolledStranger.id]);
    expect(res.body.data).toEqual({
      enrolled: [individual.id, member.id],
      skipped: [
        { student_id: stranger.id, reason: "not_in_scope" },
        { student_id: enrolledStranger.id, reason: "not_in_scope" },
      ],
      enrolled_count: 2,
      skipped_count: 2,
    });
    expect(await enrollmentRow(tree.courseId, stranger.id)).toBeUndefined();
    // With manage_groups the curator is not restricted.
    const wide = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    expect((await bulk(wide, tree.courseId, [stranger.id])).body.data.enrolled).toEqual([stranger.id]);
  });

  it("404 course_not_found for a missing, deleted or foreign course", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree((await createSchool()).id);
    for (const courseId of [unknownId(), deleted.courseId, foreign.courseId]) {
      expect({ courseId, ...failure(await bulk(admin, courseId, [student.id])) }).toEqual({ courseId, status: 404, error: "course_not_found" });
      expect(await enrollmentRow(courseId, student.id)).toBeUndefined();
    }
  });

  it("400 student_ids_cap_exceeded past 500 ids (checked before the ids), invalid_body for a bad list, invalid_course_id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const ids = Array.from({ length: 501 }, () => uuidv7());
    expect(failure(await bulk(admin, tree.courseId, ids))).toEqual({ status: 400, error: "student_ids_cap_exceeded" });
    expect(failure(await bulk(admin, tree.courseId, [...ids.slice(0, 500), "not-a-uuid"]))).toEqual({ status: 400, error: "student_ids_cap_exceeded" });
    expect((await bulk(admin, tree.courseId, ids.slice(0, 500))).status).toBe(200);
    const path = `/t/courses/${tree.courseId}/enroll/bulk`;
    for (const body of [{}, { student_ids: [] }, { student_ids: ["not-a-uuid"] }, { student_ids: "x" }, { student_ids: [1] }, { student_ids: [uuidv7()], extra: 1 }]) {
      const res = await as(admin, path, { body });
      expect({ body, ...failure(res) }).toEqual({ body, status: 400, error: "invalid_body" });
    }
    expect(failure(await bulk(admin, "nope", [uuidv7()]))).toEqual({ status: 400, error: "invalid_course_id" });
  });

  it("costs the same statements for 500 ids as for 2: one read of the push settings and one batch", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 2] });
    const many = await manyStudents(school.id, 500);
    const few = await manyStudents(school.id, 2);
    const big = await counted(admin, tree.courseId, many);
    expect(big.body.data.enrolled_count).toBe(500);
    const small = await counted(admin, tree.courseId, few);
    expect(small.body.data.enrolled_count).toBe(2);
    expect(big.counts).toEqual(small.counts);
    // Auth (1), the push settings (1), then one batch of six statements.
    expect(big.counts).toEqual({ prepare: 8, batch: 1, exec: 0 });
    const [row] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, many[499]!));
    expect(row).toMatchObject({ totalBlocks: 8, enrolledBy: admin.id });
  });
});

/** `count` students of the school in one INSERT … SELECT. */
async function manyStudents(tenantId: string, count: number): Promise<string[]> {
  const prefix = uuidv7().slice(0, 24);
  const now = Date.now();
  await fixtureD1.prepare(
    `INSERT INTO users (id, tenant_id, email, password_hash, first_name, last_name, role, is_active, created_at, updated_at)
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
     SELECT ?2 || printf('%012x', i), ?3, ?2 || i || '@example.test', 'x', 'First' || i, 'Last' || i, 'student', 1, ?4, ?4 FROM n`,
  )
    .bind(count, prefix, tenantId, now)
    .run();
  return Array.from({ length: count }, (_, i) => `${prefix}${(i + 1).toString(16).padStart(12, "0")}`);
}

async function counted(member: Member, courseId: string, studentIds: string[]) {
  const counting = countingD1(await schoolD1(member.tenantId));
  const response = await app.request(
    `https://api.lms.localhost/api/v1/t/courses/${courseId}/enroll/bulk`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain, "content-type": "application/json" },
      body: JSON.stringify({ student_ids: studentIds }),
    },
    envWith(counting.db),
  );
  return { status: response.status, body: (await response.json()) as any, counts: { ...counting.counts } };
}
