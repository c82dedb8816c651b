import { expect } from "vitest";
import { schoolD1 } from "../helpers/databases";
import type { ApiResponse } from "../helpers/http";
import type { Member } from "../helpers/users";

/** A stored audit entry as the content tests compare it (the read route is tested elsewhere). */
export interface StoredEntry {
  actor_id: string | null;
  actor_role: string | null;
  actor_name: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  summary: string;
  changes: Record<string, [unknown, unknown]>;
  request_id: string | null;
}

/** The school's audit entries, oldest first, straight from its shard. */
export async function auditRows(tenantId: string, action?: string): Promise<StoredEntry[]> {
  const d1 = await schoolD1(tenantId);
  const { results } = await d1
    .prepare(
      `SELECT actor_id, actor_role, actor_name, action, target_type, target_id, summary, changes, request_id
       FROM audit_entries WHERE tenant_id = ?1 AND (?2 IS NULL OR action = ?2) ORDER BY at, id`,
    )
    .bind(tenantId, action ?? null)
    .all<Omit<StoredEntry, "changes"> & { changes: string }>();
  return results.map((row) => ({ ...row, changes: JSON.parse(row.changes) as StoredEntry["changes"] }));
}

/** The actor columns and request id an entry of this call must carry. */
export async function byCall(member: Member, response: ApiResponse) {
  const d1 = await schoolD1(member.tenantId);
  const user = await d1.prepare("SELECT first_name, last_name FROM users WHERE id = ?").bind(member.id).first<{ first_name: string; last_name: string }>();
  const requestId = response.headers.get("x-request-id");
  expect(requestId).toEqual(expect.any(String));
  return { actor_id: member.id, actor_role: member.role, actor_name: `${user!.first_name} ${user!.last_name}`.trim(), request_id: requestId };
}
