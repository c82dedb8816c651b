import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, addGroupCurator, as, assignIndividualCurator, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { insertPath, markCompleted } from "./helpers";

/** GET /t/learning-paths/:id/students: the path's registry with each student's progress along it. */

const named = async (id: string, firstName: string, lastName: string) => db().update(schema.users).set({ firstName, lastName }).where(eq(schema.users.id, id));

describe("GET /t/learning-paths/:id/students", () => {
  it("students with an active enrollment in a published course of the path, by name, with unlocked, completed, first unlock and last activity", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [a, b, c] = [await insertCourseTree(school.id), await insertCourseTree(school.id), await insertCourseTree(school.id)];
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const outsider = await insertCourseTree(school.id);
    const pathId = await insertPath(school.id, { courseIds: [a.courseId, draft.courseId, b.courseId, c.courseId] });
    const ahead = await signedIn(school, { role: "student" });
    const starting = await signedIn(school, { role: "student" });
    const draftOnly = await signedIn(school, { role: "student" });
    const elsewhere = await signedIn(school, { role: "student" });
    const removed = await signedIn(school, { role: "student" });
    await named(ahead.id, "Aziz", "Bakirov");
    await named(starting.id, "Olga", "Abramova");

    const t = (day: number) => Date.parse(`2030-02-${String(day).padStart(2, "0")}T10:00:00Z`);
    const aheadA = await insertEnrollment(school.id, a.courseId, ahead.id, { enrolledAt: t(1) });
    await markCompleted(aheadA, t(3));
    await insertEnrollment(school.id, b.courseId, ahead.id, { enrolledAt: t(4) });
    await db().update(schema.enrollments).set({ lastAccessedAt: t(6) }).where(eq(schema.enrollments.studentId, ahead.id));
    // Enrolled by staff in the last course, still locked for the student: not counted as unlocked.
    await insertEnrollment(school.id, c.courseId, starting.id, { enrolledAt: t(2) });
    await insertEnrollment(school.id, draft.courseId, draftOnly.id);
    await insertEnrollment(school.id, outsider.courseId, elsewhere.id);
    const gone = await insertEnrollment(school.id, a.courseId, removed.id);
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, gone));

    const res = await as(admin, `/t/learning-paths/${pathId}/students`);
    expect(res.body.data).toEqual({
      students: [
        {
          student_id: starting.id,
          email: starting.email,
          first_name: "Olga",
          last_name: "Abramova",
          is_active: true,
          courses_unlocked: 1,
          courses_completed: 0,
          first_unlocked_at: null,
          last_activity_at: null,
        },
        {
          student_id: ahead.id,
          email: ahead.email,
          first_name: "Aziz",
          last_name: "Bakirov",
          is_active: true,
          courses_unlocked: 2,
          courses_completed: 1,
          first_unlocked_at: "2030-02-01T10:00:00.000Z",
          last_activity_at: "2030-02-06T10:00:00.000Z",
        },
      ],
      total: 2,
      limit: 50,
      offset: 0,
    });
    const page = (await as(admin, `/t/learning-paths/${pathId}/students?limit=1&offset=1`)).body.data;
    expect(page).toMatchObject({ total: 2, limit: 1, offset: 1, students: [{ student_id: ahead.id }] });
  });

  it("a restricted curator sees only their own students; a curator who manages groups sees all", async () => {
    const { school } = await schoolWithAdmin();
    const course = await insertCourseTree(school.id);
    const pathId = await insertPath(school.id, { status: "draft", courseIds: [course.courseId] });
    const restricted = await signedIn(school, curatorWith({ can_manage_courses: true }));
    const wide = await signedIn(school, curatorWith({ can_manage_courses: true, can_manage_groups: true }));
    const [own, viaGroup, other] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    for (const student of [own, viaGroup, other]) await insertEnrollment(school.id, course.courseId, student.id);
    await assignIndividualCurator(own.id, restricted.id);
    const group = await createGroup(school.id);
    await addMember(group, viaGroup.id);
    await addGroupCurator(group, restricted.id);

    const ids = async (who: typeof restricted) => {
      const data = (await as(who, `/t/learning-paths/${pathId}/students`)).body.data;
      return { total: data.total, ids: (data.students as { student_id: string }[]).map((row) => row.student_id).sort() };
    };
    expect(await ids(restricted)).toEqual({ total: 2, ids: [own.id, viaGroup.id].sort() });
    expect(await ids(wide)).toEqual({ total: 3, ids: [own.id, viaGroup.id, other.id].sort() });
  });

  it("400 invalid_params for a bad limit or offset; 404 path_not_found for an unknown path", async () => {
    const { school, admin } = await schoolWithAdmin();
    const pathId = await insertPath(school.id);
    for (const query of ["limit=0", "limit=201", "offset=-1"]) {
      expect(failure(await as(admin, `/t/learning-paths/${pathId}/students?${query}`))).toEqual({ status: 400, error: "invalid_params" });
    }
    expect(failure(await as(admin, `/t/learning-paths/${unknownId()}/students`))).toEqual({ status: 404, error: "path_not_found" });
    expect((await as(admin, `/t/learning-paths/${pathId}/students`)).body.data).toEqual({ students: [], total: 0, limit: 50, offset: 0 });
  });
});
