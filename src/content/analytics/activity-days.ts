import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { contentContributor, type EventCtx } from "../common/events";

/**
 * A member's activity per UTC day (`student_activity_days`) kept by the write batches that add or
 * remove it (docs/decisions/heavy-reads.md, "Fourth pass: daily activity"). A rebuild recomputes
 * the member's rows of some days from the raw rows as the batch left them, so it is exact and
 * idempotent whatever the source did (a refused or repeated change writes the same rows again).
 */

export const DAY_MS = 86_400_000;

/** The UTC day of an instant, as the table numbers it; instants before 1970 have none. */
export const dayOf = (instant: number) => Math.floor(instant / DAY_MS);

// Written into the SQL, never bound: D1 binds a JavaScript number as REAL, and an instant divided
// by a REAL is a fraction of a day, not the day.
const DAY = sql.raw(String(DAY_MS));
const LAST_MS = sql.raw(String(DAY_MS - 1));

/**
 * Two statements: an upsert of the member's rows for `days` (a SELECT of day numbers; it may read
 * the table itself, since it is evaluated once, before any row of the member changes), each flag
 * recomputed from the raw rows of that day, then the deletion of the member's rows left without a
 * flag. One probe per day and kind through the member's own indexes, never a scan of the school.
 */
export function activityDaysRebuild(ctx: EventCtx, member: string | SQL, days: SQL): BatchItem[] {
  const t = ctx.tenantId;
  const within = (column: string) => sql`${sql.raw(column)} BETWEEN d.day * ${DAY} AND d.day * ${DAY} + ${LAST_MS}`;
  return [
    batchable(
      ctx,
      sql`INSERT INTO student_activity_days (tenant_id, student_id, day, completed, quiz_started, quiz_submitted, exam_started, exam_submitted, handed_in)
        SELECT ${t}, m.id, d.day,
          EXISTS (SELECT 1 FROM block_completions bc WHERE ${inSchool("bc", t)} AND bc.student_id = m.id AND ${within("bc.completed_at")}),
          EXISTS (SELECT 1 FROM quiz_attempts qa WHERE ${inSchool("qa", t)} AND qa.user_id = m.id AND qa.exam_attempt_id IS NULL AND ${within("qa.started_at")}),
          EXISTS (SELECT 1 FROM quiz_attempts qa WHERE ${inSchool("qa", t)} AND qa.user_id = m.id AND qa.exam_attempt_id IS NULL AND ${within("qa.submitted_at")}),
          EXISTS (SELECT 1 FROM exam_attempts ea WHERE ${inSchool("ea", t)} AND ea.user_id = m.id AND ${within("ea.started_at")}),
          EXISTS (SELECT 1 FROM exam_attempts ea WHERE ${inSchool("ea", t)} AND ea.user_id = m.id AND ${within("ea.submitted_at")}),
          EXISTS (SELECT 1 FROM submissions s WHERE ${inSchool("s", t)} AND s.student_id = m.id AND ${within("s.submitted_at")})
        FROM (SELECT ${member} AS id) m
          JOIN (SELECT DISTINCT day FROM (${days}) WHERE day >= 0) d
        WHERE m.id IS NOT NULL
        ON CONFLICT (tenant_id, student_id, day) DO UPDATE SET completed = excluded.completed, quiz_started = excluded.quiz_started,
          quiz_submitted = excluded.quiz_submitted, exam_started = excluded.exam_started, exam_submitted = excluded.exam_submitted,
          handed_in = excluded.handed_in`,
    ),
    batchable(
      ctx,
      sql`DELETE FROM student_activity_days WHERE ${inSchool(t)} AND student_id = ${member}
        AND completed = 0 AND quiz_started = 0 AND quiz_submitted = 0 AND exam_started = 0 AND exam_submitted = 0 AND handed_in = 0`,
    ),
  ];
}

const oneDay = (now: number) => sql`SELECT ${sql.raw(String(dayOf(now)))} AS day`;

/**
 * The days an attempt change may touch: those of the member's attempts of the quiz (outside exams)
 * or exam, started and submitted. A start or a settle moves only its own attempt's times, and a
 * grading none, so these cover it; reading every attempt of the object keeps it exact for any
 * source (a deadline's settle dates the hand-in at the deadline, not now).
 */
function attemptDays(ctx: EventCtx, attempt: "quiz" | "exam", objectId: string | SQL, userId: string): SQL {
  const t = ctx.tenantId;
  return attempt === "quiz"
    ? sql`SELECT a.started_at / ${DAY} AS day FROM quiz_attempts a WHERE ${inSchool("a", t)} AND a.user_id = ${userId} AND a.quiz_id = ${objectId} AND a.exam_attempt_id IS NULL
        UNION SELECT a.submitted_at / ${DAY} FROM quiz_attempts a WHERE ${inSchool("a", t)} AND a.user_id = ${userId} AND a.quiz_id = ${objectId} AND a.exam_attempt_id IS NULL AND a.submitted_at IS NOT NULL`
    : sql`SELECT a.started_at / ${DAY} AS day FROM exam_attempts a WHERE ${inSchool("a", t)} AND a.user_id = ${userId} AND a.exam_id = ${objectId}
        UNION SELECT a.submitted_at / ${DAY} FROM exam_attempts a WHERE ${inSchool("a", t)} AND a.user_id = ${userId} AND a.exam_id = ${objectId} AND a.submitted_at IS NOT NULL`;
}

/**
 * Keeps the daily activity with every batch that adds or removes some: a block completion (any
 * source), an attempt started, settled or scored (quiz or exam, any role; a section's attempt
 * names its exam), a hand-in and a reopen (which clears the hand-in's time, so the member's days
 * with a hand-in are recomputed). A member's permanent deletion deletes their rows with the rest
 * of their data (src/platform/users/personal-data.ts).
 */
export const ACTIVITY_DAYS_CONTRIBUTOR = contentContributor({
  name: "analytics.activity-days",
  handles: ["block.completed", "attempt.recorded", "submission.submitted", "submission.reopened"],
  async statements(ctx, event) {
    const t = ctx.tenantId;
    switch (event.type) {
      case "block.completed":
        return activityDaysRebuild(ctx, event.studentId, oneDay(event.now));
      case "attempt.recorded":
        return activityDaysRebuild(ctx, event.userId, attemptDays(ctx, event.attempt, event.objectId, event.userId));
      case "submission.submitted":
        return activityDaysRebuild(ctx, sql`(SELECT s.student_id FROM submissions s WHERE ${inSchool("s", t)} AND s.id = ${event.submissionId})`, oneDay(event.now));
      case "submission.reopened":
        return activityDaysRebuild(
          ctx,
          event.studentId,
          sql`SELECT h.day FROM student_activity_days h WHERE ${inSchool("h", t)} AND h.student_id = ${event.studentId} AND h.handed_in = 1`,
        );
      default:
        return [];
    }
  },
});
