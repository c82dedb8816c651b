import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { decimalTextSql } from "../../core/db/decimal";
import { isoTimeSql } from "../../core/db/sql-time";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { webhookOutboxRowsStatements } from "../../platform/webhooks/outbox";
import { targetLabelSql } from "./labels";
import { schoolTotalSql } from "./ranking";

/**
 * `rating.points_changed` (05 section 5; docs/decisions/webhooks.md, "Producers"): one event per
 * point event the batch wrote, placed after its INSERT in the same batch (a refused or repeated
 * award writes no point event, so no webhook event either; the key `point_event:<id>` holds a
 * retry to one). `data` is the point event as `GET /t/rating/students/:id/events` shows it, with
 * the student and their school total after it. No statement in a school without an active webhook.
 */
export function pointsChangedWebhooks(ctx: SchoolCtx<SchoolActor>, where: SQL): BatchItem[] {
  const { tenantId } = ctx;
  const at = isoTimeSql(sql`wp.awarded_at`);
  return webhookOutboxRowsStatements(
    ctx,
    "rating.points_changed",
    sql`SELECT json_object('id', wp.id, 'student_id', wp.student_id, 'awarded_at', ${at}, 'source_type', wp.source_type, 'target_id', wp.target_id,
        'target_label', ${targetLabelSql(tenantId, sql`wp.source_type`, sql`wp.target_id`)}, 'points', ${decimalTextSql(sql`wp.points_hundredths`)},
        'rule_id', wp.rule_id, 'reason', wp.reason, 'actor_user_id', wp.actor_user_id,
        'actor_display_name', (SELECT wa.first_name || ' ' || wa.last_name FROM users wa WHERE wa.id = wp.actor_user_id AND ${inSchool("wa", tenantId)}),
        'total_points', ${decimalTextSql(schoolTotalSql(tenantId, sql`wp.student_id`))}) AS data, 'point_event:' || wp.id AS occurrence
      FROM point_events wp WHERE ${inSchool("wp", tenantId)} AND (${where}) ORDER BY wp.id`,
  );
}
