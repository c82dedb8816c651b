import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import { db } from "../helpers/databases";
import { as, type Member } from "../helpers/users";

export const profilePath = (userId: string) => `/t/users/${userId}/accommodation`;
export const getProfile = (member: Member, userId: string) => as(member, profilePath(userId));
export const putProfile = (member: Member, userId: string, body: unknown) => as(member, profilePath(userId), { method: "PUT", body });
export const deleteProfile = (member: Member, userId: string) => as(member, profilePath(userId), { method: "DELETE" });

export const neutral = (userId: string) => ({
  user_id: userId,
  time_multiplier: "1.00",
  extra_time_seconds: 0,
  extra_attempts: 0,
  note: null,
  updated_at: null,
  updated_by: null,
});

/** The school's audit entries, oldest first, as the fields these tests compare. */
export async function auditOf(tenantId: string) {
  const rows = await db().select().from(schema.auditEntries).where(eq(schema.auditEntries.tenantId, tenantId));
  return rows
    .sort((a, b) => a.at - b.at || a.id.localeCompare(b.id))
    .map((row) => ({ action: row.action, target_type: row.targetType, target_id: row.targetId, actor_id: row.actorId, changes: row.changes }));
}
