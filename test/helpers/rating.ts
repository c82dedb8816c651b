import { as, type Member } from "./users";
import { fixtureD1 } from "./databases";

/** Rating calls through HTTP and reads of the stored points, for tests of the rating area. */

export const getRules = (admin: Member) => as(admin, "/t/admin/gamification/rules");
export const putDefault = (admin: Member, sourceType: string, body: unknown) => as(admin, `/t/admin/gamification/rules/defaults/${sourceType}`, { method: "PUT", body });
export const putOverride = (admin: Member, sourceType: string, targetId: string, body: unknown) =>
  as(admin, `/t/admin/gamification/rules/overrides/${sourceType}/${targetId}`, { method: "PUT", body });
export const deleteOverride = (admin: Member, sourceType: string, targetId: string) =>
  as(admin, `/t/admin/gamification/rules/overrides/${sourceType}/${targetId}`, { method: "DELETE" });
export const adjust = (admin: Member, body: unknown) => as(admin, "/t/admin/rating/adjustments", { body });

/** The student's stored total in hundredths (0 without a row). */
export async function totalOf(tenantId: string, studentId: string): Promise<number> {
  const row = await fixtureD1.prepare("SELECT points_hundredths FROM rating_totals WHERE tenant_id = ? AND student_id = ?").bind(tenantId, studentId).first<{ points_hundredths: number }>();
  return row?.points_hundredths ?? 0;
}

export interface PointEventRow {
  id: string;
  student_id: string;
  source_type: string;
  target_id: string | null;
  source_key: string;
  points_hundredths: number;
  rule_id: string | null;
  reason: string | null;
  actor_user_id: string | null;
  awarded_at: number;
}

/** The school's point events, oldest first. */
export async function pointEventRows(tenantId: string): Promise<PointEventRow[]> {
  const { results } = await fixtureD1.prepare("SELECT * FROM point_events WHERE tenant_id = ? ORDER BY awarded_at, id").bind(tenantId).all<PointEventRow & { tenant_id: string }>();
  return results.map(({ tenant_id: _tenant, ...row }) => row);
}

/** Sets a student's total directly (a point event, so the totals trigger keeps them in step). */
export async function givePoints(tenantId: string, studentId: string, hundredths: number, sourceKey = `test:${crypto.randomUUID()}`) {
  await fixtureD1.prepare(
    "INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, awarded_at) VALUES (?, ?, ?, 'manual', NULL, ?, ?, ?)",
  )
    .bind(crypto.randomUUID(), tenantId, studentId, sourceKey, hundredths, Date.now())
    .run();
}
