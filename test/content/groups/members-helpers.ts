import { eq } from "drizzle-orm";
import * as schema from "../../../src/db/schema";
import { uuidv7 } from "../../../src/core/lib/ids";
import { db } from "../../helpers/factories";
import { as, type Member } from "../../helpers/users";

export const listMembers = (caller: Member, groupId: string, query = "") => as(caller, `/t/groups/${groupId}/members${query}`);

export const addMembers = (caller: Member, groupId: string, studentIds: unknown) =>
  as(caller, `/t/groups/${groupId}/members`, { method: "POST", body: { student_ids: studentIds } });

export const removeMembers = (caller: Member, groupId: string, studentIds: unknown) =>
  as(caller, `/t/groups/${groupId}/members`, { method: "DELETE", body: { student_ids: studentIds } });

/** The group enrolled in the course, written straight to D1 (the course-groups endpoints have their own tests). */
export async function linkGroup(tenantId: string, groupId: string, courseId: string) {
  await db().insert(schema.courseGroupEnrollments).values({ id: uuidv7(), tenantId, courseId, groupId, enrolledAt: Date.now(), enrolledBy: null });
}

export async function membershipsOf(groupId: string) {
  const rows = await db().select().from(schema.groupMembers).where(eq(schema.groupMembers.groupId, groupId));
  return rows.map((row) => row.userId).sort();
}

export { enrollmentOf, sourceKeys } from "../../helpers/courses";
