import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { db } from "../helpers/factories";
import { as, type Member } from "../helpers/users";

/** A published one-block course with the student enrolled. */
export async function courseWithStudent(tenantId: string, student: Member, title?: string) {
  const tree = await insertCourseTree(tenantId, { shape: [1, 1, 1], ...(title ? { title } : {}) });
  await insertEnrollment(tenantId, tree.courseId, student.id);
  return tree;
}

export const putRule = (member: Member, courseId: string, body: unknown) => as(member, `/t/courses/${courseId}/certificate`, { method: "PUT", body });

/** The student completes the course's single block (the manual completion is the completing event). */
export const completeBlock = (student: Member, blockId: string) => as(student, `/t/blocks/${blockId}/complete`, { method: "POST" });

export async function setNames(userId: string, firstName: string, lastName: string) {
  await db().update(schema.users).set({ firstName, lastName }).where(eq(schema.users.id, userId));
}

export async function certificateRows(studentId: string) {
  return db().select().from(schema.certificates).where(eq(schema.certificates.studentId, studentId));
}

export const CODE = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;
