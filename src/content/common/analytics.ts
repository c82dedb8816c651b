import { sql, type SQL } from "drizzle-orm";
import { formatHundredths, roundDiv } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What quiz and exam analytics share: which attempts (or figure rows kept of them) a figure
 * counts, the mean of stored percentages and the ten score buckets, so both answer alike for the
 * same kind of data.
 */

export const SCORE_BUCKETS = 10;

export interface CountedAttempts {
  /** The attempts, or the figures kept of them per member (each carries `tenant_id`, `user_id` and `actor_role`). */
  table: "quiz_attempts" | "exam_attempts" | "quiz_figures" | "quiz_question_figures" | "exam_figures" | "exam_section_figures";
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

/** Mean of hundredths over `count` attempts, rounded half-up once from the exact sum; null without attempts. */
export function meanPct(sum: number | null, count: number): string | null {
  return count === 0 ? null : formatHundredths(roundDiv(sum ?? 0, count));
}

/** The `bucket_<n>` columns of a figures table, in order. */
export const BUCKET_COLUMNS = sql.raw(Array.from({ length: SCORE_BUCKETS }, (_, bucket) => `bucket_${bucket}`).join(", "));

/** For a figures rebuild: per bucket, how many rows have `counted` true and `pct` (hundredths) in it, as in `bucketCountsSql`. */
export function bucketSumsSql(pct: SQL, counted: SQL): SQL {
  return sql.join(
    Array.from({ length: SCORE_BUCKETS }, (_, bucket) => sql`coalesce(sum(${counted} AND min(${SCORE_BUCKETS - 1}, ${pct} / 1000) = ${sql.raw(String(bucket))}), 0)`),
    sql`, `,
  );
}

/** For a figures read (alias `f`): the summed buckets as columns `bucket_0` … `bucket_9`. */
export const BUCKET_TOTALS = sql.raw(Array.from({ length: SCORE_BUCKETS }, (_, bucket) => `coalesce(sum(f.bucket_${bucket}), 0) AS bucket_${bucket}`).join(", "));

/** The ten buckets from a figures read's `bucket_<n>` columns. */
export function bucketsOfTotals(row: Record<string, unknown>): { bucket: number; count: number }[] {
  return Array.from({ length: SCORE_BUCKETS }, (_, bucket) => ({ bucket, count: Number(row[`bucket_${bucket}`] ?? 0) }));
}

/** Which attempts a figures rebuild covers: one object's (a quiz or exam id, or SQL naming it), one member's, both, or the school's. */
export interface FiguresScope {
  objectId?: string | SQL;
  userId?: string;
  /** SQL: a SELECT of member ids (a regrade's chunk rebuilds the members it re-scored at once). */
  userIn?: SQL;
}

/** The school's rows (alias `alias`) of the scope, the object named by `column` (`quiz_id`, `exam_id`). */
export function figuresWhere(tenantId: string, alias: string, column: "quiz_id" | "exam_id", scope: FiguresScope): SQL {
  const a = sql.raw(alias);
  const parts = [
    inSchool(alias, tenantId),
    scope.objectId === undefined ? undefined : sql`${a}.${sql.raw(column)} = ${scope.objectId}`,
    scope.userId === undefined ? undefined : sql`${a}.user_id = ${scope.userId}`,
    scope.userIn === undefined ? undefined : sql`${a}.user_id IN (${scope.userIn})`,
  ].filter((part): part is SQL => part !== undefined);
  return sql.join(parts, sql` AND `);
}
