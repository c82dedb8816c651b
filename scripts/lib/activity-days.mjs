/**
 * The per-member daily activity flags (`student_activity_days`) of one school rebuilt from the raw
 * rows: the same folding as the backfill of the migration that added the table and as the write
 * batches' rebuild (src/content/analytics/activity-days.ts). A source of the app keeps the table
 * in its own batch; activity rows a seed, the bench or a test helper writes behind its back need
 * this afterwards. One upsert per kind keeps each SELECT a single term (D1 limits compound SELECTs).
 */
import { literal } from "./sql.mjs";

const DAY_MS = 86_400_000;

/** [column, table, member column, instant column, extra condition] per kind of activity. */
const KINDS = [
  ["completed", "block_completions", "student_id", "completed_at", ""],
  ["quiz_started", "quiz_attempts", "user_id", "started_at", "AND exam_attempt_id IS NULL"],
  ["quiz_submitted", "quiz_attempts", "user_id", "submitted_at", "AND exam_attempt_id IS NULL"],
  ["exam_started", "exam_attempts", "user_id", "started_at", ""],
  ["exam_submitted", "exam_attempts", "user_id", "submitted_at", ""],
  ["handed_in", "submissions", "student_id", "submitted_at", ""],
];

/** The rebuild as separate statements (for a D1 batch); `studentId` narrows it to one member. */
export function activityDaysStatements(tenantId, { studentId } = {}) {
  const t = literal(tenantId);
  const only = (column) => (studentId === undefined ? "" : `AND ${column} = ${literal(studentId)}`);
  return [
    `DELETE FROM student_activity_days WHERE tenant_id = ${t} ${only("student_id")};`,
    ...KINDS.map(
      ([column, table, member, instant, extra]) =>
        `INSERT INTO student_activity_days (tenant_id, student_id, day, ${column})
  SELECT tenant_id, ${member}, ${instant} / ${DAY_MS}, 1 FROM ${table} WHERE tenant_id = ${t} ${only(member)} AND ${instant} >= 0 ${extra}
  GROUP BY ${member}, ${instant} / ${DAY_MS}
  ON CONFLICT (tenant_id, student_id, day) DO UPDATE SET ${column} = 1;`,
    ),
  ];
}

/** The rebuild as one SQL text (for `wrangler d1 execute --file` and the seeds). */
export function activityDaysSql(tenantId, options = {}) {
  return `${activityDaysStatements(tenantId, options).join("\n")}\n`;
}
