import { sql, type SQL } from "drizzle-orm";
import { formatHundredths, roundDiv } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What quiz and exam analytics share: which attempts a figure counts, the mean of stored
 * percentages and the ten score buckets, so both answer alike for the same kind of data.
 */

export const SCORE_BUCKETS = 10;

export interface CountedAttempts {
  /** `quiz_attempts` or `exam_attempts`; both carry `tenant_id`, `user_id` and `actor_role`. */
  table: "quiz_attempts" | "exam_attempts";
  alias: string;
  /** What ties the attempts to the object analysed (the quiz or exam id, the exam-section rule). */
  of: SQL;
  /** `true` adds attempts staff made; otherwise only those made as a student count. */
  includeStaff: boolean | undefined;
}

/**
 * `FROM … WHERE …` of the attempts a figure counts: of members of the school not deleted, made as
 * a student unless staff attempts are asked for, and for a restricted curator only their own
 * students' (a staff member is never one, so staff attempts never reach them). `extra` narrows it.
 */
export function countedAttemptsSql(ctx: SchoolCtx, counted: CountedAttempts, extra?: SQL): SQL {
  const t = ctx.tenantId;
  const a = sql.raw(counted.alias);
  const filters = [
    counted.includeStaff ? undefined : sql`${a}.actor_role = 'student'`,
    scopeCondition(sql`${a}.user_id`, restrictedScope(ctx)),
    extra,
  ].filter((filter): filter is SQL => filter !== undefined);
  return sql`FROM ${sql.raw(counted.table)} ${a}
      JOIN users u ON u.id = ${a}.user_id AND ${liveInSchool("u", t)}
    WHERE ${inSchool(a, t)} AND ${counted.of}
      ${filters.length > 0 ? sql`AND ${sql.join(filters, sql` AND `)}` : sql``}`;
}

/**
 * `SELECT bucket, count` of a percentage in integer hundredths over `from`: / 1000 is the tenth of
 * the range, and 100 % joins the last bucket rather than opening an eleventh.
 */
export function bucketCountsSql(pct: SQL, from: SQL): SQL {
  return sql`SELECT min(${SCORE_BUCKETS - 1}, ${pct} / 1000) AS bucket, count(*) AS count ${from} GROUP BY 1`;
}

/** Always the ten buckets, empty ones with count 0. */
export function scoreDistribution(rows: readonly { bucket: number; count: number }[]): { bucket: number; count: number }[] {
  const counts = new Map(rows.map((row) => [row.bucket, row.count]));
  return Array.from({ length: SCORE_BUCKETS }, (_, bucket) => ({ bucket, count: counts.get(bucket) ?? 0 }));
}

/** Mean of hundredths over `count` attempts, rounded half-up once from the exact sum; null without attempts. */
export function meanPct(sum: number | null, count: number): string | null {
  return count === 0 ? null : formatHundredths(roundDiv(sum ?? 0, count));
}
