import { eq } from "drizzle-orm";
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

export { enrollmentOf, sourceKeys } from "../../helpers/courses";
