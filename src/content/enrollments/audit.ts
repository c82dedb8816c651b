import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { inSchool } from "../../core/db/conditions";
import { auditFromRows, rowJson, rowValue } from "../../platform/audit/from-row";

/**
 * `enrollment.removed` (docs/decisions/audit.md, "Content actions"), to go just before the sources
 * are removed: `target` is the active enrollment (alias `e`), `removable` the source keys the
 * removal takes. Written when the removal applies: a removable source is there, or none at all
 * (a sourceless enrollment simply closes); a group-managed enrollment (409) or a missing one
 * (404) writes none. Changes: the enrollment's source keys and its status, before and after.
 */
export function removalAudit(ctx: SchoolCtx, input: { target: SQL; removable: readonly string[] }): BatchItem {
  const { tenantId } = ctx;
  const keys = sql`SELECT value FROM json_each(${JSON.stringify(input.removable)})`;
  const enrollment = sql`SELECT e.id FROM enrollments e WHERE ${inSchool("e", tenantId)} AND ${input.target}`;
  const sources = (extra: SQL) =>
    rowJson(sql`SELECT json_group_array(k.source_key) FROM (SELECT s.source_key FROM enrollment_sources s
      WHERE ${inSchool("s", tenantId)} AND s.enrollment_id IN (${enrollment}) ${extra} ORDER BY s.source_key) k`);
  const kept = sql`AND s.source_key NOT IN (${keys})`;
  return auditFromRows(ctx, {
    always: true,
    action: "enrollment.removed",
    targetType: "enrollment",
    targetId: sql`(${enrollment})`,
    summary: "Direct enrollment removed",
    changes: {
      sources: [sources(sql``), sources(kept)],
      status: ["active", rowValue(sql`SELECT CASE WHEN EXISTS (SELECT 1 FROM enrollment_sources s WHERE ${inSchool("s", tenantId)} AND s.enrollment_id IN (${enrollment}) ${kept}) THEN 'active' ELSE 'removed' END`)],
    },
    when: sql`EXISTS (SELECT 1 FROM enrollments e WHERE ${inSchool("e", tenantId)} AND ${input.target}
      AND (EXISTS (SELECT 1 FROM enrollment_sources s WHERE ${inSchool("s", tenantId)} AND s.enrollment_id = e.id AND s.source_key IN (${keys}))
        OR NOT EXISTS (SELECT 1 FROM enrollment_sources s WHERE ${inSchool("s", tenantId)} AND s.enrollment_id = e.id)))`,
  });
}
