import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { quizAccessLessonsSql, studentQuizAccessSql } from "../../../src/content/quizzes/access";
import { insertEnrollment } from "../../helpers/courses";
import { createSchool, createUser, db } from "../../helpers/factories";
import { addMember, createGroup } from "../../helpers/users";
import { giveQuizAccess, insertQuiz, insertQuizCourse } from "../../helpers/quizzes";

async function reaches(tenantId: string, quizId: string, studentId: string) {
  const [row] = await db().all<{ ok: number }>(sql`SELECT ${studentQuizAccessSql(tenantId, quizId, studentId, Date.now())} AS ok`);
  return row!.ok === 1;
}

async function lessonsOf(tenantId: string, quizId: string, studentId: string) {
  const rows = await db().all<{ id: string; module_id: string; course_id: string }>(quizAccessLessonsSql(tenantId, quizId, studentId));
  return rows.map((row) => row.id).sort();
}

describe("the student's access to a quiz", () => {
  it("needs a live quiz_ref block in a visible lesson of a published course with an active enrollment", async () => {
    const school = await createSchool();
    const student = await createUser(school.id, { role: "student" });
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    expect(await reaches(school.id, quiz.id, student.id)).toBe(false);

    const tree = await insertQuizCourse(school.id, quiz.id, { shape: [1, 2, 1] });
    expect(await reaches(school.id, quiz.id, student.id)).toBe(false);
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    expect(await reaches(school.id, quiz.id, student.id)).toBe(true);
    expect(await lessonsOf(school.id, quiz.id, student.id)).toEqual([...tree.lessonIds].sort());

    // A lesson restricted to a group the student is not in no longer gives access.
    const group = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: tree.lessonIds[0]!, groupId: group.id, createdAt: Date.now() });
    expect(await lessonsOf(school.id, quiz.id, student.id)).toEqual([tree.lessonIds[1]]);
    await addMember(group, student.id);
    expect(await lessonsOf(school.id, quiz.id, student.id)).toEqual([...tree.lessonIds].sort());

    // A deleted block gives nothing.
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, tree.blockIds[1]!));
    expect(await lessonsOf(school.id, quiz.id, student.id)).toEqual([tree.lessonIds[0]]);

    // A removed enrollment, a draft course: no access.
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, enrollmentId));
    expect(await reaches(school.id, quiz.id, student.id)).toBe(false);
    await db().update(schema.enrollments).set({ removedAt: null }).where(eq(schema.enrollments.id, enrollmentId));
    await db().update(schema.courses).set({ status: "draft" }).where(eq(schema.courses.id, tree.courseId));
    expect(await reaches(school.id, quiz.id, student.id)).toBe(false);
  });

  it("is per school", async () => {
    const school = await createSchool();
    const other = await createSchool();
    const student = await createUser(school.id, { role: "student" });
    const quiz = await insertQuiz(school.id);
    await giveQuizAccess(school.id, quiz.id, [student.id]);
    expect(await reaches(school.id, quiz.id, student.id)).toBe(true);
    expect(await reaches(other.id, quiz.id, student.id)).toBe(false);
  });
});
