import { isoTimeSql } from "../../core/db/sql-time";
import { sql, type SQL } from "drizzle-orm";
import { inSchool } from "../../core/db/conditions";
import { decimalTextSql } from "../../core/db/decimal";
import { webhookOutboxRowsStatements, webhookOutboxStatements } from "../../platform/webhooks/outbox";
import { contentContributor, enrollmentAccessSql, type EventCtx } from "../common/events";

/**
 * The webhook events of the content sources (05 section 5; docs/decisions/webhooks.md, "Producers"):
 * contributors of the domain events that write the outbox rows in the source's own batch. The
 * webhooks area is a platform area and may not import content, so its content half lives here; it
 * writes nothing but the outbox, and nothing at all in a school without an active webhook (the
 * school's flag, read by the auth read). `data` is built in SQL after the source's writes, from the
 * rows as the batch leaves them.
 */

const decimalSql = (column: SQL) => sql`(CASE WHEN ${column} IS NULL THEN NULL ELSE ${decimalTextSql(column)} END)`;
const boolSql = (column: SQL) => sql`json(CASE WHEN ${column} IS NULL THEN 'null' WHEN ${column} THEN 'true' ELSE 'false' END)`;

/** The quiz attempt as the attempts list shows it to staff. */
function quizAttemptJson(ctx: EventCtx, attemptId: string): SQL {
  const c = (name: string) => sql.raw(`wq.${name}`);
  return sql`(SELECT json_object('id', wq.id, 'quiz_id', wq.quiz_id, 'student_id', wq.user_id, 'status', wq.status,
      'score', ${decimalSql(sql`${c("score_hundredths")}`)}, 'max_score', ${decimalSql(sql`${c("max_score_hundredths")}`)},
      'score_pct', ${decimalSql(sql`${c("score_pct_hundredths")}`)}, 'passed', ${boolSql(sql`${c("passed")}`)},
      'pending_review', ${boolSql(sql`${c("pending_review")}`)}, 'auto_finalized', ${boolSql(sql`${c("auto_finalized")}`)},
      'submitted_at', ${isoTimeSql(sql`${c("submitted_at")}`)})
    FROM quiz_attempts wq WHERE wq.id = ${attemptId} AND ${inSchool("wq", ctx.tenantId)})`;
}

function examAttemptJson(ctx: EventCtx, attemptId: string): SQL {
  const c = (name: string) => sql.raw(`wx.${name}`);
  return sql`(SELECT json_object('id', wx.id, 'exam_id', wx.exam_id, 'student_id', wx.user_id, 'status', wx.status,
      'score', ${decimalSql(sql`${c("final_score_hundredths")}`)}, 'max_score', ${decimalSql(sql`${c("final_max_hundredths")}`)},
      'score_pct', ${decimalSql(sql`${c("final_score_pct_hundredths")}`)}, 'passed', ${boolSql(sql`${c("passed")}`)},
      'auto_finalized', ${boolSql(sql`${c("auto_finalized")}`)}, 'submitted_at', ${isoTimeSql(sql`${c("submitted_at")}`)})
    FROM exam_attempts wx WHERE wx.id = ${attemptId} AND ${inSchool("wx", ctx.tenantId)})`;
}

/** The submission as the API shows it to staff, without its attachments (their links expire). */
function submissionJson(ctx: EventCtx, submissionId: string): SQL {
  const c = (name: string) => sql.raw(`ws.${name}`);
  return sql`(SELECT json_object('id', ws.id, 'assignment_id', ws.assignment_id, 'student_id', ws.student_id, 'attempt', ws.attempt,
      'status', ws.status, 'text', ws.text, 'score', ${decimalSql(sql`${c("score_hundredths")}`)}, 'feedback', ws.feedback,
      'graded_by_id', ws.graded_by_id, 'graded_at', ${isoTimeSql(sql`${c("graded_at")}`)}, 'submitted_at', ${isoTimeSql(sql`${c("submitted_at")}`)},
      'created_at', ${isoTimeSql(sql`${c("created_at")}`)}, 'updated_at', ${isoTimeSql(sql`${c("updated_at")}`)})
    FROM submissions ws WHERE ws.id = ${submissionId} AND ${inSchool("ws", ctx.tenantId)})`;
}

/** SQL over the submission: the column's value, for an occurrence key. */
const submissionColumn = (ctx: EventCtx, submissionId: string, column: string) =>
  sql`(SELECT ${sql.raw(`wk.${column}`)} FROM submissions wk WHERE wk.id = ${submissionId} AND ${inSchool("wk", ctx.tenantId)})`;

/**
 * `quiz_attempt.submitted` once per attempt (its key), `quiz_attempt.graded` when its score became
 * final: on the submit for an attempt with nothing to review, else on the grading that cleared
 * the last pending answer (keyed by the attempt's last grading time, so a later regrade is one more
 * and a repeated grading none).
 * `exam_attempt.submitted` once per exam attempt.
 */
export const attemptWebhooksContributor = contentContributor({
  name: "webhook-events.attempts",
  handles: ["attempt.settled"],
  statements: async (ctx, event) => {
    if (event.attempt === "exam") {
      const submitted = sql`EXISTS (SELECT 1 FROM exam_attempts we WHERE we.id = ${event.attemptId} AND ${inSchool("we", ctx.tenantId)} AND we.status = 'submitted')`;
      return webhookOutboxStatements(ctx, "exam_attempt.submitted", examAttemptJson(ctx, event.attemptId), { when: submitted, occurrence: `exam_attempt:${event.attemptId}` });
    }
    const attemptIs = (condition: SQL) =>
      sql`EXISTS (SELECT 1 FROM quiz_attempts wa WHERE wa.id = ${event.attemptId} AND ${inSchool("wa", ctx.tenantId)} AND wa.status = 'submitted' AND ${condition})`;
    const data = quizAttemptJson(ctx, event.attemptId);
    if (event.finalized) {
      return [
        ...webhookOutboxStatements(ctx, "quiz_attempt.submitted", data, { when: attemptIs(sql`1`), occurrence: `quiz_attempt:${event.attemptId}` }),
        ...webhookOutboxStatements(ctx, "quiz_attempt.graded", data, { when: attemptIs(sql`wa.pending_review = 0`), occurrence: `quiz_attempt:${event.attemptId}` }),
      ];
    }
    // A grading's repeat changes no grading time, so the key (the attempt's last grading) writes no second event.
    const lastGrading = sql`(SELECT max(wg.graded_at) FROM quiz_attempt_answers wg WHERE ${inSchool("wg", ctx.tenantId)} AND wg.attempt_id = ${event.attemptId})`;
    return webhookOutboxStatements(ctx, "quiz_attempt.graded", data, {
      when: attemptIs(sql`wa.pending_review = 0`),
      occurrence: sql`${`quiz_attempt:${event.attemptId}`} || coalesce(':' || ${lastGrading}, '')`,
    });
  },
});

/** `submission.submitted` per hand-in (keyed by its `submitted_at`), `submission.reviewed` per verdict this batch gave. */
export const submissionWebhooksContributor = contentContributor({
  name: "webhook-events.submissions",
  handles: ["submission.submitted", "submission.accepted", "submission.rejected"],
  statements: async (ctx, event) => {
    const data = submissionJson(ctx, event.submissionId);
    if (event.type === "submission.submitted") {
      const submitted = sql`EXISTS (SELECT 1 FROM submissions wt WHERE wt.id = ${event.submissionId} AND ${inSchool("wt", ctx.tenantId)} AND wt.status = 'submitted')`;
      return webhookOutboxStatements(ctx, "submission.submitted", data, {
        when: submitted,
        occurrence: sql`'submission:' || ${event.submissionId} || ':' || ${submissionColumn(ctx, event.submissionId, "submitted_at")}`,
      });
    }
    return webhookOutboxStatements(ctx, "submission.reviewed", data, {
      when: event.when,
      occurrence: sql`'submission:' || ${event.submissionId} || ':' || ${submissionColumn(ctx, event.submissionId, "graded_at")}`,
    });
  },
});

/**
 * One `enrollment.created` / `enrollment.removed` per student and course whose access the batch
 * changed (the pairs the event names; a repeat or a refusal names none). `data` is the access
 * change, since some sources name the students before the enrollment row is written.
 */
export const enrollmentWebhooksContributor = contentContributor({
  name: "webhook-events.enrollments",
  handles: ["enrollment.created", "enrollment.removed"],
  statements: async (ctx, event) => {
    const created = event.type === "enrollment.created";
    const at = isoTimeSql(sql`${event.now}`);
    const groupId = event.via === "direct" || event.via === "self" ? null : event.groupId ?? null;
    const rows = sql`SELECT json_object('student_id', p.student_id, 'course_id', p.course_id, 'via', ${event.via}, 'group_id', ${groupId},
        ${created ? "enrolled_at" : "removed_at"}, ${at}) AS data, NULL AS occurrence
      FROM (${enrollmentAccessSql(ctx.tenantId, event)}) p`;
    return webhookOutboxRowsStatements(ctx, event.type, rows);
  },
});

/** `course.completed` when this batch completed the enrollment (keyed by its `completed_at`). */
export const courseCompletedWebhooksContributor = contentContributor({
  name: "webhook-events.course-completed",
  handles: ["course.completed"],
  statements: async (ctx, event) => {
    const rows = sql`SELECT json_object('enrollment_id', wc.id, 'course_id', wc.course_id, 'student_id', wc.student_id,
        'completed_at', ${isoTimeSql(sql`wc.completed_at`)}) AS data, 'enrollment:' || wc.id || ':' || wc.completed_at AS occurrence
      FROM enrollments wc WHERE wc.id = ${event.enrollmentId} AND ${inSchool("wc", ctx.tenantId)} AND wc.completed_at IS NOT NULL AND (${event.when})`;
    return webhookOutboxRowsStatements(ctx, "course.completed", rows);
  },
});

/** The content half of the webhook events, in the order app assembly registers them (src/contributors.ts): after every other contributor of their events, so `data` shows what those wrote too. */
export const WEBHOOK_EVENT_CONTRIBUTORS = [attemptWebhooksContributor, submissionWebhooksContributor, enrollmentWebhooksContributor, courseCompletedWebhooksContributor];
