import { and, eq } from "drizzle-orm";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { as, type Member } from "../../helpers/users";

export const linkGroup = (staff: Member, courseId: string, groupId: string) =>
  as(staff, `/t/courses/${courseId}/group-enrollments`, { body: { group_id: groupId } });

export const unlinkGroup = (staff: Member, courseId: string, groupId: string) =>
  as(staff, `/t/courses/${courseId}/group-enrollments/${groupId}`, { method: "DELETE" });

export const listLinks = (staff: Member, courseId: string, query = "") => as(staff, `/t/courses/${courseId}/group-enrollments${query}`);

export const enrollBulk = (staff: Member, courseId: string, body: unknown) => as(staff, `/t/courses/${courseId}/enroll-bulk`, { body });

export async function linkRows(courseId: string) {
  return db().select().from(schema.courseGroupEnrollments).where(eq(schema.courseGroupEnrollments.courseId, courseId));
}

/** The student's enrollment in the course (active or removed), if any. */
export async function enrollmentOf(courseId: string, studentId: string) {
  const [row] = await db()
    .select()
    .from(schema.enrollments)
    .where(and(eq(schema.enrollments.courseId, courseId), eq(schema.enrollments.studentId, studentId)));
  return row;
}

/** The student's access-source keys on the course, sorted. */
export async function sourceKeys(courseId: string, studentId: string) {
  const rows = await db()
    .select({ key: schema.enrollmentSources.sourceKey })
    .from(schema.enrollmentSources)
    .where(and(eq(schema.enrollmentSources.courseId, courseId), eq(schema.enrollmentSources.studentId, studentId)));
  return rows.map((row) => row.key).sort();
}
