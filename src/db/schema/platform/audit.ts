import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { id, tenantRef } from "../columns";

/**
 * The school's audit log (05 section 6): one row per staff change, written in the batch of the
 * change by `auditEntry` (src/platform/audit/write.ts). Append-only: no route updates or deletes a
 * row; the cron removes rows older than 400 days. The actor's role and name are copied at write
 * time so an entry still reads right after the person is renamed or deleted.
 */
export const auditEntries = sqliteTable(
  "audit_entries",
  {
    id: id(),
    tenantId: tenantRef(),
    at: integer("at").notNull(),
    /** The user who acted; null for a system job (then `actorJob` names it). */
    actorId: text("actor_id"),
    actorRole: text("actor_role"),
    actorName: text("actor_name"),
    actorJob: text("actor_job"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id"),
    summary: text("summary").notNull(),
    /** `{field: [before, after]}`; never a secret, hash or token (src/platform/audit/write.ts refuses such fields). */
    changes: text("changes", { mode: "json" }).$type<Record<string, [unknown, unknown]>>().notNull(),
    requestId: text("request_id"),
  },
  (t) => [
    index("audit_entries_tenant_at").on(t.tenantId, t.at, t.id),
    index("audit_entries_tenant_actor").on(t.tenantId, t.actorId, t.at),
    index("audit_entries_tenant_target").on(t.tenantId, t.targetType, t.targetId, t.at),
    index("audit_entries_tenant_action").on(t.tenantId, t.action, t.at),
  ],
);
