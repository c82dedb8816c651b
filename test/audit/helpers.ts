import { and, eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import { db } from "../helpers/factories";
import { api } from "../helpers/http";

type Staff = { token: string; subdomain: string };

/** The school's log as its admin reads it (GET /t/audit-log), with an optional query string. */
export async function auditLog(admin: Staff, query = "") {
  const res = await api(`/t/audit-log${query ? `?${query}` : ""}`, { token: admin.token, tenant: admin.subdomain });
  if (res.status !== 200) throw new Error(`GET /t/audit-log answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data as { entries: AuditEntryJson[]; total: number; page: number; limit: number };
}

export interface AuditEntryJson {
  id: string;
  at: string;
  actor: { id: string | null; role: string | null; name: string | null } | null;
  action: string;
  target_type: string;
  target_id: string | null;
  summary: string;
  changes: Record<string, [unknown, unknown]>;
  request_id: string | null;
}

/** `action`, target and `changes` of the entries (newest first), the parts a test pins exactly. */
export async function auditActions(admin: Staff, query = "") {
  return (await auditLog(admin, query)).entries.map((entry) => ({ action: entry.action, target_id: entry.target_id, changes: entry.changes }));
}

/** The stored rows of a school's log, straight from the table. */
export async function auditRows(tenantId: string) {
  return db().select().from(schema.auditEntries).where(and(eq(schema.auditEntries.tenantId, tenantId)));
}
