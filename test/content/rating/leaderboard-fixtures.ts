import { env } from "cloudflare:test";
import { uuidv7 } from "../../../src/core/lib/ids";
import { createSchool, createUser } from "../../helpers/factories";
import { signedIn, type Member } from "../../helpers/users";
import type { UserOptions } from "../../helpers/factories";

/** Fixtures of the rating read tests: named students and point events written straight to D1 (the triggers keep the totals). */

/** A student named `first last`, signed in (an inactive one cannot sign in: it comes without a token). */
export async function named(school: { id: string; subdomain: string }, first: string, last: string, options: UserOptions = {}): Promise<Member> {
  const member =
    options.isActive === false
      ? { ...(await createUser(school.id, { role: "student", ...options, firstName: first })), token: "", sessionId: "", subdomain: school.subdomain }
      : await signedIn(school, { role: "student", ...options, firstName: first });
  await env.DB.prepare("UPDATE users SET last_name = ? WHERE id = ?").bind(last, member.id).run();
  return member as Member;
}

export interface EventOptions {
  sourceType?: string;
  targetId?: string | null;
  awardedAt?: number;
  reason?: string | null;
  actorUserId?: string | null;
  ruleId?: string | null;
  id?: string;
}

/** One point event of `points` hundredths (signed). */
export function eventStatement(tenantId: string, studentId: string, points: number, options: EventOptions = {}) {
  const id = options.id ?? uuidv7();
  const sourceType = options.sourceType ?? "manual";
  return env.DB.prepare(
    `INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, rule_id, reason, actor_user_id, awarded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).bind(
    id,
    tenantId,
    studentId,
    sourceType,
    options.targetId ?? null,
    `test:${id}`,
    points,
    options.ruleId ?? null,
    options.reason ?? (sourceType === "manual" ? "test" : null),
    options.actorUserId ?? null,
    options.awardedAt ?? Date.now(),
  );
}

export async function award(member: { id: string; tenantId: string }, points: number, options: EventOptions = {}) {
  const id = options.id ?? uuidv7();
  await eventStatement(member.tenantId, member.id, points, { ...options, id }).run();
  return id;
}

export async function ratingSchool() {
  const school = await createSchool();
  const admin = await signedIn(school, { role: "admin" });
  return { school, admin };
}

export const dayMs = 86_400_000;
