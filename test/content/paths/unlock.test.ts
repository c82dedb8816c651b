import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { failure } from "../../helpers/http";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { insertPath, markCompleted } from "./helpers";

/**
 * The unlock rule: completed (the active enrollment has completed_at), unlocked (the first course,
 * or the one before is completed), else locked; what the student sees of it, self-enrollment in a
 * locked course, and the courses a published path holds against deletion.
 */

const myPaths = async (student: Member) => (await as(student, "/t/students/me/paths")).body.data.paths;
const enroll = (student: Member, courseId: string) => as(student, `/t/courses/${courseId}/enroll`, { method: "POST" });

async function pathOfThree() {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const ids: string[] = [];
  for (const title of ["Basics", "Advanced", "Expert"]) ids.push((await insertCourseTree(school.id, { title })).courseId);
  const pathId = await insertPath(school.id, { title: "Mastery", courseIds: ids });
  return { school, admin, student, ids: ids as [string, string, string], pathId };
}

describe("GET /t/students/me/paths", () => {
  it("every published path by title; the first course unlocked, the next ones unlocked as the one before completes", async () => {
    const { school, student, ids, pathId } = await pathOfThree();
    const [basics, advanced, expert] = ids;
    const draftCourse = (await insertCourseTree(school.id, { title: "Hidden", status: "draft" })).courseId;
    const other = await insertPath(school.id, { title: "Another", courseIds: [draftCourse, expert] });
    await insertPath(school.id, { title: "Aaa draft", status: "draft", courseIds: [basics] });
    await insertPath(school.id, { title: "Empty" });

    const fresh = await myPaths(student);
    expect(fresh.map((path: { title: string }) => path.title)).toEqual(["Another", "Empty", "Mastery"]);
    expect(fresh[1]).toEqual({ path_id: expect.any(String), title: "Empty", description: "", courses: [] });
    // A draft course is skipped: it neither shows nor blocks the course after it.
    expect(fresh[0]).toEqual({
      path_id: other,
      title: "Another",
      description: "",
      courses: [{ course_id: expert, position: 1, title: "Expert", status: "unlocked", unlocked_at: null, completed_at: null }],
    });
    expect(fresh[2].courses).toEqual([
      { course_id: basics, position: 0, title: "Basics", status: "unlocked", unlocked_at: null, completed_at: null },
      { course_id: advanced, position: 1, title: "Advanced", status: "locked", unlocked_at: null, completed_at: null },
      { course_id: expert, position: 2, title: "Expert", status: "locked", unlocked_at: null, completed_at: null },
    ]);

    const first = await insertEnrollment(school.id, basics, student.id, { enrolledAt: Date.parse("2030-01-01T08:00:00Z") });
    // Enrolled by staff in a locked course: still locked, and its enrollment time stays hidden.
    await insertEnrollment(school.id, expert, student.id, { enrolledAt: Date.parse("2030-01-02T08:00:00Z") });
    let mastery = (await myPaths(student)).find((path: { path_id: string }) => path.path_id === pathId);
    expect(mastery.courses.map((course: { status: string; unlocked_at: string | null }) => [course.status, course.unlocked_at])).toEqual([
      ["unlocked", "2030-01-01T08:00:00.000Z"],
      ["locked", null],
      ["locked", null],
    ]);

    await markCompleted(first, Date.parse("2030-01-05T08:00:00Z"));
    mastery = (await myPaths(student)).find((path: { path_id: string }) => path.path_id === pathId);
    expect(mastery.courses).toEqual([
      { course_id: basics, position: 0, title: "Basics", status: "completed", unlocked_at: "2030-01-01T08:00:00.000Z", completed_at: "2030-01-05T08:00:00.000Z" },
      { course_id: advanced, position: 1, title: "Advanced", status: "unlocked", unlocked_at: null, completed_at: null },
      { course_id: expert, position: 2, title: "Expert", status: "locked", unlocked_at: null, completed_at: null },
    ]);
  });

  it("staff get the same view over their own (absent) enrollments", async () => {
    const { admin, ids } = await pathOfThree();
    const [path] = await myPaths(admin);
    expect(path.courses.map((course: { course_id: string; status: string }) => [course.course_id, course.status])).toEqual([
      [ids[0], "unlocked"],
      [ids[1], "locked"],
      [ids[2], "locked"],
    ]);
  });
});

describe("self-enrollment in a path's course", () => {
  it("409 course_locked while the course is locked in every published path that holds it", async () => {
    const { student, ids } = await pathOfThree();
    const [basics, advanced] = ids;
    expect(failure(await enroll(student, advanced))).toEqual({ status: 409, error: "course_locked" });
    const enrolled = await enroll(student, basics);
    expect(enrolled.status).toBe(201);
    expect(failure(await enroll(student, advanced))).toEqual({ status: 409, error: "course_locked" });
    await markCompleted(enrolled.body.data.id);
    expect((await enroll(student, advanced)).status).toBe(201);
  });

  it("a course unlocked in one published path is open even if locked in another; draft paths and no path never lock", async () => {
    const { school, student, ids } = await pathOfThree();
    const expert = ids[2];
    await insertPath(school.id, { courseIds: [expert] });
    expect((await enroll(student, expert)).status).toBe(201);
    const loose = (await insertCourseTree(school.id)).courseId;
    expect((await enroll(student, loose)).status).toBe(201);
    const guarded = (await insertCourseTree(school.id)).courseId;
    await insertPath(school.id, { status: "draft", courseIds: [loose, guarded] });
    expect((await enroll(student, guarded)).status).toBe(201);
  });

  it("staff enrollment is not blocked by the lock", async () => {
    const { admin, student, ids } = await pathOfThree();
    const bulk = await as(admin, `/t/courses/${ids[2]}/enroll/bulk`, { body: { student_ids: [student.id] } });
    expect(bulk.body.data).toMatchObject({ enrolled: [student.id], skipped: [] });
  });
});

describe("DELETE /t/courses/:id in a path", () => {
  it("409 course_in_active_path while a published live path holds it; a draft or deleted path does not", async () => {
    const { school, admin, ids, pathId } = await pathOfThree();
    expect(failure(await as(admin, `/t/courses/${ids[1]}`, { method: "DELETE" }))).toEqual({ status: 409, error: "course_in_active_path" });
    await as(admin, `/t/learning-paths/${pathId}/unpublish`, { method: "POST" });
    expect((await as(admin, `/t/courses/${ids[1]}`, { method: "DELETE" })).status).toBe(204);
    await insertPath(school.id, { deleted: true, courseIds: [ids[2]] });
    expect((await as(admin, `/t/courses/${ids[2]}`, { method: "DELETE" })).status).toBe(204);
  });
});
