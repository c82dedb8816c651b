import { or, sql, type SQL } from "drizzle-orm";
import { batchable, runBatch, rowsOf } from "../../core/db/batch";
import { containsText, inSchool, liveInSchool } from "../../core/db/conditions";
import { formatHundredths, roundDiv } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { pageOffset } from "../../core/http/pagination";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { courseVisibleSql } from "../common/access";
import { enrollmentsErrors as e } from "./errors";
import { pctHundredthsSql, toCuratorRow, toStudentCourseRow, type CuratorRow, type StudentCourseRow } from "./present";
import { activitySql, anyCourseWindowEndedSql, courseEndedSql, runningBucketsSql, statusSql, storedActivitySql, type EnrollmentStatus } from "./status";

/** The course (alias `c`) as its manager sees it: a live course of the school, draft or published. */
export function managedCourseSql(ctx: SchoolCtx, courseId: string): SQL {
  return sql`SELECT c.id, c.slug, c.title FROM courses c WHERE c.id = ${courseId} AND ${courseVisibleSql(ctx, sql`c`)}`;
}

/** What the list's statements read of the context: the school, the caller (for their scope) and the time. */
type ListCtx = Pick<SchoolCtx, "tenantId" | "actor" | "clock">;

/**
 * A slice of the rows in enrollment order (`enrolled_at`, then id): the rows after `after` (keyset)
 * or past `offset`, at most `limit` of them.
 */
export interface EnrollmentSlice {
  direction: "asc" | "desc";
  limit: number;
  offset?: number;
  after?: { enrolledAt: number; id: string } | null;
}

/**
 * The course's active enrollments of live students that the caller may see (a restricted curator:
 * their own students), matching `q`, as rows with their latest activity and status bucket
 * (alias-free columns, for a derived table). The enrollments drive (`CROSS JOIN`): without table
 * statistics SQLite may otherwise walk the school's users and seek each one's enrollment. With a `slice`, the rows are picked (and the picked set materialized) before
 * the status is measured, so a page or an export chunk costs the status reads (the schedule
 * rule's) of its own rows, not of the whole course. The activity is the row's own
 * (`storedActivitySql`): no row reads the completions.
 */
export function courseEnrollmentsSql(ctx: ListCtx, input: { courseId: string; q?: string; slice?: EnrollmentSlice }): SQL {
  const { tenantId } = ctx;
  const { slice } = input;
  const now = ctx.clock.now();
  const inScope = scopeCondition(sql`e.student_id`, restrictedScope(ctx));
  const search = input.q
    ? or(
        containsText(sql`(u.first_name || ' ' || u.last_name)`, input.q),
        containsText(sql`(u.last_name || ' ' || u.first_name)`, input.q),
        containsText(sql`u.email`, input.q),
      )
    : undefined;
  let window = sql``;
  if (slice) {
    const desc = slice.direction === "desc";
    const after = slice.after ? (desc ? sql`AND (e.enrolled_at, e.id) < (${slice.after.enrolledAt}, ${slice.after.id})` : sql`AND (e.enrolled_at, e.id) > (${slice.after.enrolledAt}, ${slice.after.id})`) : sql``;
    window = sql`${after} ORDER BY ${desc ? sql`e.enrolled_at DESC, e.id DESC` : sql`e.enrolled_at, e.id`} LIMIT ${slice.limit} OFFSET ${slice.offset ?? 0}`;
  }
  const picked = sql`SELECT e.id AS enrollment_id, e.student_id, e.course_id, u.email AS student_email, u.first_name AS student_first_name,
        u.last_name AS student_last_name, e.enrolled_at, e.enrolled_by, e.blocks_completed, e.total_blocks,
        e.last_accessed_at, e.last_completion_at, e.completed_at
      FROM enrollments e CROSS JOIN users u ON u.id = e.student_id AND ${liveInSchool("u", tenantId)}
      WHERE ${inSchool("e", tenantId)} AND e.course_id = ${input.courseId} AND e.removed_at IS NULL
        ${inScope ? sql`AND ${inScope}` : sql``}
        ${search ? sql`AND ${search}` : sql``}
        ${window}`;
  // Without a slice every row is measured anyway: materializing them would only copy the course's rows.
  return sql`WITH picked AS ${slice ? sql`MATERIALIZED ` : sql``}(${picked}),
      measured AS (SELECT p.*, ${storedActivitySql(sql`p`)} AS activity FROM picked p)
    SELECT m.*, ${statusSql(now, courseEndedSql(tenantId, input.courseId, sql`m.student_id`, now))} AS status FROM measured m`;
}

/** A row (alias `row`) that counts in the mean progress: its course had blocks. */
function withBlocksSql(row: SQL): SQL {
  return sql`${row}.total_blocks > 0`;
}

/** The progress sums of the counts as JSON members: the percentages of the rows (alias `row`) with blocks, and how many. */
function progressMembersSql(row: SQL): SQL {
  return sql`'pct_sum', sum(CASE WHEN ${withBlocksSql(row)} THEN ${pctHundredthsSql(row)} END),
      'pct_count', count(CASE WHEN ${withBlocksSql(row)} THEN 1 END)`;
}

/**
 * The counts per status bucket and the progress sums of every row `courseEnrollmentsSql` answers
 * (no slice, no status filter), as one JSON object (`tally`). Which way they are counted
 * (docs/decisions/heavy-reads-enrollments.md, "Enrollment counts without a status per row"):
 * - the whole course (no `q`, no curator scope) while none of its course windows has ended
 *   (`anyCourseWindowEndedSql`): nobody's status can be "past the end", so each bucket is a range
 *   of `enrollments_tenant_course_counts` (`runningCountsSql`), counted without visiting a row;
 * - otherwise each row's status is measured once (`statusSql`). The rows keep `LIMIT -1` (no
 *   limit) so SQLite cannot flatten them into the aggregate, which would copy the status
 *   expression, with its schedule read, into each of the four sums.
 * `CASE` evaluates only the branch it takes, so the other one reads nothing.
 */
export function enrollmentCountsSql(ctx: ListCtx, input: { courseId: string; q?: string }): SQL {
  const now = ctx.clock.now();
  const perRow = sql`(SELECT json_object('all_count', count(*),
      'active', sum(s.status = 'active'), 'risk', sum(s.status = 'risk'),
      'done', sum(s.status = 'done'), 'notstarted', sum(s.status = 'notstarted'), ${progressMembersSql(sql`s`)})
    FROM (${courseEnrollmentsSql(ctx, input)} LIMIT -1) s)`;
  if (input.q || restrictedScope(ctx)) return sql`SELECT ${perRow} AS tally`;
  return sql`SELECT CASE WHEN ${anyCourseWindowEndedSql(ctx.tenantId, input.courseId, now)} THEN ${perRow}
      ELSE ${runningCountsSql(ctx, input.courseId, now)} END AS tally`;
}

/**
 * The whole course's counts while no course window has ended: each bucket is the course's
 * enrollments in that bucket (one range of `enrollments_tenant_course_counts`, which holds the
 * bucket's columns in order) minus those of the school's deleted students (`gone`: the school's
 * few deleted users, through `users_deleted`, each with one seek of `enrollments_course_student`).
 * An enrollment's student is always a user of its school (enrolling checks it; a permanent
 * deletion removes the enrollments), so "not deleted" is "live", as the list's join says.
 */
function runningCountsSql(ctx: ListCtx, courseId: string, now: number): SQL {
  const { tenantId } = ctx;
  const course = sql`${inSchool("e", tenantId)} AND e.course_id = ${courseId} AND e.removed_at IS NULL`;
  const gone = sql`SELECT e.completed_at, e.last_accessed_at, e.last_completion_at, e.total_blocks, e.blocks_completed
    FROM users u CROSS JOIN enrollments e ON e.course_id = ${courseId} AND e.student_id = u.id
    WHERE ${inSchool("u", tenantId)} AND u.deleted_at IS NOT NULL AND ${course}`;
  const counted = (condition?: SQL) =>
    sql`(SELECT count(*) FROM enrollments e WHERE ${course}${condition ? sql` AND ${condition}` : sql``})
      - (SELECT count(*) FROM gone e${condition ? sql` WHERE ${condition}` : sql``})`;
  const buckets = runningBucketsSql(now, sql`e`);
  const withBlocks = withBlocksSql(sql`e`);
  return sql`(WITH gone AS MATERIALIZED (${gone})
    SELECT json_object('all_count', ${counted()},
      'active', ${counted(buckets.active)}, 'risk', ${counted(buckets.risk)},
      'done', ${counted(buckets.done)}, 'notstarted', ${counted(buckets.notstarted)},
      'pct_sum', (SELECT coalesce(sum(${pctHundredthsSql(sql`e`)}), 0) FROM enrollments e WHERE ${course} AND ${withBlocks})
        - (SELECT coalesce(sum(${pctHundredthsSql(sql`e`)}), 0) FROM gone e WHERE ${withBlocks}),
      'pct_count', ${counted(withBlocks)}))`;
}

interface CountsRow {
  all_count: number;
  active: number | null;
  risk: number | null;
  done: number | null;
  notstarted: number | null;
  pct_sum: number | null;
  pct_count: number;
}

/**
 * GET /courses/:id/enrollments (manage_students): one page of the course's active enrollments,
 * newest first, with the counts per status bucket and the mean progress of every row matching `q`
 * (the `status` filter narrows the page and `total`, not the counts). One round trip: the course,
 * the page and the counts in one batch.
 */
export async function listEnrollments(
  ctx: SchoolCtx,
  input: { courseId: string; query: { page: number; limit: number; q?: string; status?: EnrollmentStatus } },
) {
  const { courseId, query } = input;
  const rows = courseEnrollmentsSql(ctx, { courseId, q: query.q });
  const offset = pageOffset(query.page, query.limit);
  // Without a status filter the page is picked before the status is measured; a status filter needs every row's.
  const page = query.status
    ? sql`SELECT * FROM (${rows}) s WHERE s.status = ${query.status} ORDER BY s.enrolled_at DESC, s.enrollment_id DESC LIMIT ${query.limit} OFFSET ${offset}`
    : sql`SELECT * FROM (${courseEnrollmentsSql(ctx, { courseId, q: query.q, slice: { direction: "desc", limit: query.limit, offset } })}) s
        ORDER BY s.enrolled_at DESC, s.enrollment_id DESC`;
  const results = await runBatch(ctx, [
    batchable(ctx, managedCourseSql(ctx, courseId)),
    batchable(ctx, page),
    batchable(ctx, enrollmentCountsSql(ctx, { courseId, q: query.q })),
  ]);
  if (rowsOf(results[0]).length === 0) throw new ApiError(e.COURSE_NOT_FOUND);
  const tally = JSON.parse(rowsOf<{ tally: string }>(results[2])[0]!.tally) as CountsRow;
  const counts = {
    all: tally.all_count,
    active: tally.active ?? 0,
    risk: tally.risk ?? 0,
    done: tally.done ?? 0,
    notstarted: tally.notstarted ?? 0,
  };
  return {
    enrollments: rowsOf<CuratorRow>(results[1]).map(toCuratorRow),
    total: query.status ? counts[query.status] : counts.all,
    page: query.page,
    limit: query.limit,
    counts,
    avg_progress: tally.pct_count === 0 ? null : formatHundredths(roundDiv(tally.pct_sum ?? 0, tally.pct_count)),
  };
}

/**
 * GET /me/courses (student): the caller's active enrollments in live courses (a course unpublished
 * since still appears), most recent activity first (last access or completion; never-touched
 * enrollments after them), then newest enrollment first. One statement.
 */
export async function myCourses(ctx: SchoolCtx, input: { limit: number; offset: number }) {
  const { tenantId } = ctx;
  const rows = await ctx.db.all<StudentCourseRow>(sql`
    SELECT e.course_id, c.title AS course_title, c.status AS course_status, c.cover_image_id, e.id AS enrollment_id,
      e.enrolled_at, e.last_accessed_block_id, e.last_accessed_at, e.blocks_completed, e.total_blocks, e.completed_at,
      ${activitySql(tenantId)} AS activity
    FROM enrollments e JOIN courses c ON c.id = e.course_id AND ${liveInSchool("c", tenantId)}
    WHERE ${inSchool("e", tenantId)} AND e.student_id = ${ctx.actor.userId} AND e.removed_at IS NULL
    ORDER BY activity DESC NULLS LAST, e.enrolled_at DESC, e.id DESC
    LIMIT ${input.limit} OFFSET ${input.offset}`);
  return rows.map(toStudentCourseRow);
}
