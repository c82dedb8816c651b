import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createSchool, createUser, db } from "../../helpers/factories";
import { schoolWithAdmin } from "../../helpers/users";
import { call } from "../../notifications/helpers";
import { insertCompletion } from "./helpers";

/** Students with enrollments and completions in two courses, plus a removed enrollment and a deleted course. */
async function courseAudience() {
  const { school, admin } = await schoolWithAdmin();
  const make = (firstName: string) => createUser(school.id, { role: "student", firstName });
  const [anna, bekzod, dilya, eldor] = [await make("Anna"), await make("Bekzod"), await make("Dilya"), await make("Eldor")];
  const algebra = await insertCourseTree(school.id, { title: "Algebra", shape: [1, 2, 2] });
  const biology = await insertCourseTree(school.id, { title: "Biology", status: "draft", shape: [1, 1, 1] });
  const gone = await insertCourseTree(school.id, { title: "Gone" });
  await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, gone.courseId));
  const annaAlgebra = await insertEnrollment(school.id, algebra.courseId, anna.id);
  const bekzodAlgebra = await insertEnrollment(school.id, algebra.courseId, bekzod.id);
  await insertEnrollment(school.id, biology.courseId, dilya.id);
  await insertEnrollment(school.id, gone.courseId, eldor.id);
  const removed = await insertEnrollment(school.id, biology.courseId, eldor.id);
  await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, removed));
  // Anna passed lesson 1 (both blocks); Bekzod completed only its first block.
  const lesson1 = algebra.modules[0]!.lessons[0]!;
  for (const blockId of lesson1.blocks) {
    await insertCompletion({ tenantId: school.id, courseId: algebra.courseId, lessonId: lesson1.id, blockId, studentId: anna.id, enrollmentId: annaAlgebra });
  }
  await insertCompletion({ tenantId: school.id, courseId: algebra.courseId, lessonId: lesson1.id, blockId: lesson1.blocks[0]!, studentId: bekzod.id, enrollmentId: bekzodAlgebra });
  return { school, admin, algebra, biology, gone, lesson1 };
}

const names = (res: { body: any }) => (res.body.data.audience.sample as { first_name: string }[]).map((s) => s.first_name).sort();

describe("audience fields of the course tree", () => {
  it("course_enrollment in / not_in: active enrollments in live courses", async () => {
    const { admin, algebra, biology, gone } = await courseAudience();
    const cases: [unknown, string[]][] = [
      [{ field: "course_enrollment", operator: "in", values: [algebra.courseId] }, ["Anna", "Bekzod"]],
      // Eldor's biology enrollment was removed; a draft course still counts.
      [{ field: "course_enrollment", operator: "in", values: [biology.courseId] }, ["Dilya"]],
      [{ field: "course_enrollment", operator: "in", values: [algebra.courseId, biology.courseId] }, ["Anna", "Bekzod", "Dilya"]],
      // A deleted course holds nobody.
      [{ field: "course_enrollment", operator: "in", values: [gone.courseId] }, []],
      [{ field: "course_enrollment", operator: "not_in", values: [algebra.courseId] }, ["Dilya", "Eldor"]],
    ];
    for (const [rule, expected] of cases) {
      const res = await call(admin, "/t/notifications/admin/audience/preview", { body: { filter: { match: "all", rules: [rule] } } });
      expect({ rule, status: res.status, names: names(res) }).toEqual({ rule, status: 200, names: expected });
    }
  });

  it("lesson_completed in / not_in: every live block of the lesson completed", async () => {
    const { admin, algebra, lesson1 } = await courseAudience();
    const lesson2 = algebra.modules[0]!.lessons[1]!;
    const preview = (rule: unknown) => call(admin, "/t/notifications/admin/audience/preview", { body: { filter: { match: "all", rules: [rule] } } });
    expect(names(await preview({ field: "lesson_completed", operator: "in", values: [lesson1.id] }))).toEqual(["Anna"]);
    expect(names(await preview({ field: "lesson_completed", operator: "in", values: [lesson1.id, lesson2.id] }))).toEqual(["Anna"]);
    expect(names(await preview({ field: "lesson_completed", operator: "in", values: [lesson2.id] }))).toEqual([]);
    expect(names(await preview({ field: "lesson_completed", operator: "not_in", values: [lesson1.id] }))).toEqual(["Bekzod", "Dilya", "Eldor"]);
    // Deleting Bekzod's missing block leaves him with every live block of the lesson completed.
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, lesson1.blocks[1]!));
    expect(names(await preview({ field: "lesson_completed", operator: "in", values: [lesson1.id] }))).toEqual(["Anna", "Bekzod"]);
    // A lesson without live blocks is passed by nobody.
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, lesson1.blocks[0]!));
    expect(names(await preview({ field: "lesson_completed", operator: "in", values: [lesson1.id] }))).toEqual([]);
  });
});

describe("audience options of the course tree", () => {
  it("course, module and lesson options: live rows of the school with their context", async () => {
    const { admin, algebra } = await courseAudience();
    await insertCourseTree((await createSchool()).id, { title: "Foreign" });
    const options = async (query: string) => {
      const res = await call(admin, `/t/notifications/admin/audience/options?${query}`);
      expect(res.status).toBe(200);
      return res.body.data as { total: number; options: { id: string; label: string; subtitle: string }[] };
    };
    const courses = await options("kind=course");
    expect(courses.options.map((o) => [o.label, o.subtitle])).toEqual([
      ["Algebra", "published · 2 students"],
      ["Biology", "draft · 1 students"],
    ]);
    expect(courses.options[0]!.id).toBe(algebra.courseId);
    expect((await options("kind=course&q=alg")).options.map((o) => o.label)).toEqual(["Algebra"]);

    const modules = await options("kind=module");
    expect(modules.options.map((o) => [o.label, o.subtitle])).toEqual([
      ["Module 1", "Algebra"],
      ["Module 1", "Biology"],
    ]);
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, algebra.lessonIds[1]!));
    const lessons = await options("kind=lesson&q=algebra");
    expect(lessons).toMatchObject({ total: 1, options: [{ id: algebra.lessonIds[0], label: "Lesson 1.1", subtitle: "Algebra / Module 1" }] });
  });
});
