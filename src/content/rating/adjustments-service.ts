import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { formatHundredths } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { eventDefinition } from "../../platform/notifications/catalog";
import { dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { prefetchSchoolEvents } from "../../platform/notifications/settings";
import type { CreateAdjustmentBody } from "./adjustment-schemas";
import { topEnteredPush } from "./award";
import { ratingErrors } from "./errors";
import { decimalTextSql } from "../../core/db/decimal";
import { schoolTotalSql } from "./ranking";
import { effectiveRuleSql } from "./rules";
import { inSchool } from "../../core/db/conditions";
import { auditEntry } from "../../platform/audit/write";
import { pointsChangedWebhooks } from "./webhooks";

/**
 * POST /admin/rating/adjustments (docs/decisions/rating.md, "Rules and adjustments"): an admin's signed point event for a
 * student of the school (role student, not deleted; an inactive one too), `source_type` manual,
 * with the reason and the admin as actor. Refused while the school's manual rule is disabled.
 *
 * One read batch (a replayed key's event, the student, the manual rule, the pushes' settings),
 * then one write batch: the conditional INSERT, the pushes of that very row (#61 or #62, and #63
 * when it lifts the student into the top 10) and the read-back by source key. The source key
 * (`manual:<idempotency_key>`, else `manual:<event id>`) is unique in the school, so of
 * concurrent calls with one key exactly one row and one push are written, and every call answers
 * with that row's id: 201 to the call that wrote it, 200 to the others.
 */

const PUSHES = {
  bonus: eventDefinition("rating.bonus_awarded")!,
  deducted: eventDefinition("rating.points_deducted")!,
  topEntered: eventDefinition("rating.top_entered")!,
};
const codeOf = (positive: boolean): "rating.bonus_awarded" | "rating.points_deducted" => (positive ? "rating.bonus_awarded" : "rating.points_deducted");

function liveStudentSql(ctx: SchoolCtx, studentId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM users su WHERE ${inSchool("su", ctx.tenantId)} AND su.id = ${studentId} AND su.role = 'student' AND su.deleted_at IS NULL)`;
}

interface State {
  event_id: string | null;
  student_live: number;
  enabled: number;
}

/** The event written under `sourceKey` (if any), whether the student is live and adjustments are on, as one row. */
function stateRead(ctx: SchoolCtx, studentId: string, sourceKey: string): BatchItem {
  const manual = effectiveRuleSql(ctx.tenantId, "manual", sql`NULL`);
  return batchable(
    ctx,
    sql`SELECT (SELECT pe.id FROM point_events pe WHERE ${inSchool("pe", ctx.tenantId)} AND pe.source_key = ${sourceKey}) AS event_id,
        ${liveStudentSql(ctx, studentId)} AS student_live, ${manual.enabled} AS enabled
      FROM (SELECT 1) ${manual.joins}`,
  );
}

function refuse(state: State): never {
  if (state.student_live !== 1) throw new ApiError(ratingErrors.STUDENT_NOT_FOUND);
  if (state.enabled !== 1) {
    throw new ApiError(coreErrors.INVALID_REQUEST_BODY, { message: "Adjustments are switched off: the school's manual rating rule is disabled." });
  }
  throw new Error("adjustment: no event and no reason for it");
}

export async function createAdjustment(ctx: SchoolCtx, body: CreateAdjustmentBody): Promise<{ created: boolean; eventId: string }> {
  const { tenantId } = ctx;
  const studentId = body.student_id;
  const id = uuidv7();
  const sourceKey = `manual:${body.idempotency_key ?? id}`;
  const push = body.points > 0 ? PUSHES.bonus : PUSHES.deducted;

  const prefetch = prefetchSchoolEvents(ctx, tenantId, [push, PUSHES.topEntered]);
  const reads = await runBatch(ctx, [stateRead(ctx, studentId, sourceKey), ...(prefetch.statements as BatchItem[])]);
  const [before] = rowsOf<State>(reads[0]) as [State];
  // A key already used answers with its event whatever this body says (another student, amount or reason).
  if (before.event_id !== null) return { created: false, eventId: before.event_id };
  if (before.student_live !== 1 || before.enabled !== 1) refuse(before);
  prefetch.remember(reads.slice(1));

  const now = ctx.clock.now();
  const manual = effectiveRuleSql(tenantId, "manual", sql`NULL`);
  const written = sql`EXISTS (SELECT 1 FROM point_events w WHERE ${inSchool("w", tenantId)} AND w.id = ${id})`;
  const callPoints = sql`(SELECT cp.points_hundredths FROM point_events cp WHERE ${inSchool("cp", tenantId)} AND cp.id = ${id})`;
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, rule_id, reason, actor_user_id, awarded_at)
        SELECT ${id}, ${tenantId}, ${studentId}, 'manual', NULL, ${sourceKey}, ${body.points}, ${manual.id}, ${body.reason}, ${ctx.actor.userId}, ${now}
        FROM (SELECT 1) ${manual.joins}
        WHERE ${liveStudentSql(ctx, studentId)} AND ${manual.enabled} = 1
        ON CONFLICT (tenant_id, source_key) DO NOTHING`,
    ),
    await enqueue(
      ctx,
      codeOf(body.points > 0),
      { token: "student", studentId },
      { points: formatHundredths(Math.abs(body.points)), reason: body.reason, total_points: decimalTextSql(schoolTotalSql(tenantId, studentId)) },
      { id },
      `${codeOf(body.points > 0)}:${id}:${id}`,
      { when: written },
    ),
    await topEnteredPush(ctx, studentId, id, callPoints, now),
    stateRead(ctx, studentId, sourceKey),
    // Last, so the results above keep their places; `written` names this call's row, so a replayed key writes none.
    auditEntry(ctx, {
      action: "rating.adjusted",
      targetType: "rating_adjustment",
      targetId: id,
      summary: body.points > 0 ? "Bonus points awarded" : "Points deducted",
      changes: { student_id: [null, studentId], points: [null, formatHundredths(body.points)], reason: [null, body.reason] },
      when: written,
    }),
    ...pointsChangedWebhooks(ctx, sql`wp.id = ${id}`),
  ]);
  const [after] = rowsOf<State>(results[3]) as [State];
  if (after.event_id === null) refuse(after);
  await dispatchQueued(ctx);
  return { created: after.event_id === id, eventId: after.event_id };
}
