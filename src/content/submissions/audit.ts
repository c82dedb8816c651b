import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { auditFromRows, rowDecimal, rowValue } from "../../platform/audit/from-row";

/**
 * The audit entry of a review or a reopen (docs/decisions/audit.md, "Content actions"), to go just
 * before the change's UPDATE: `from` is that UPDATE's condition on the row (unqualified columns of
 * `submissions`), so the entry exists exactly when the UPDATE applies, and the row before is read
 * by the entry itself. Status, score and feedback are recorded (the feedback is the text the student reads).
 */
export function submissionAudit(
  ctx: SchoolCtx,
  id: string,
  input: { action: "submission.reviewed" | "submission.reopened"; summary: string; from: SQL; after: { status: string; score: string | null; feedback?: string | null } },
): BatchItem {
  const row = sql`FROM submissions WHERE id = ${id} AND ${inSchool(ctx.tenantId)}`;
  const before = (column: string) => sql`SELECT ${sql.raw(column)} ${row}`;
  const { after } = input;
  return auditFromRows(ctx, {
    always: true,
    action: input.action,
    targetType: "submission",
    targetId: id,
    summary: input.summary,
    changes: {
      status: [rowValue(before("status")), after.status],
      score: [rowDecimal(before("score_hundredths")), after.score],
      ...(after.feedback !== undefined ? { feedback: [rowValue(before("feedback")), after.feedback] } : {}),
    },
    when: sql`EXISTS (SELECT 1 ${row} AND ${input.from})`,
  });
}
