import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { decimalTextSql } from "../../core/db/decimal";
import type { SchoolCtx, SchoolActor } from "../../core/http/context";
import { eventDefinition } from "../../platform/notifications/catalog";
import { enqueue } from "../../platform/notifications/enqueue";
import type { PreparedEvent } from "../../core/events";
import { contentStatements, prepareContentEvent, type AttemptRecorded, type AttemptSettled, type ReferenceCompletion, type SettledScore } from "../common/events";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Settling a submitted attempt from its stored answers (`quiz_attempt_answers`), as statements for
 * the caller's write batch. Submit and finalize (finalize.ts) call it after inserting the answers;
 * grading calls it after updating awarded points. Use:
 *
 *   const prep = prepareSettle(ctx, target);             // reads, for the caller's READ batch
 *   const results = await runBatch(ctx, [...myReads, ...prep.statements]);
 *   const plan = prep.read(results.slice(myReads.length)); // results of prep.statements, in order
 *   const writes = [...myWrites, ...(await settleStatements(ctx, target, plan, options))];
 *   await runBatch(ctx, writes); await dispatchQueued(ctx);
 *
 * `ctx` is the request's SchoolCtx (its actor gets no push), or, for a deadline's finalize, a
 * ServiceContext with the school's `tenantId` and no actor (nobody is left out). `options.finalized`
 * says the batch also makes the attempt `submitted` ("submitted" by a submit, "auto_finalized" past
 * the deadline); grading leaves it out.
 *
 * The statements, in order:
 * - the attempt's `score` (sum of awarded points, pending as 0), `score_pct` (against the stored
 *   `max_score`, half-up, 0 when the maximum is 0), `pending_review` and `passed` (null while
 *   pending; else pct ≥ passing score, no passing score passes), only while it is `submitted`;
 * - for a student's attempt outside an exam: the contributors of `attempt.settled`
 *   (docs/domain-events.md): its award (`rating.scored-awards`, source `quiz`, key
 *   `quiz_attempt:<id>`), once its score is final (submitted, nothing pending, the quiz live), so
 *   on the submit or on the grading that clears the last pending answer; the key makes a later
 *   re-grade award nothing; completion (source `quiz`) of every live `quiz_ref` block naming the
 *   live quiz in a lesson the student sees of a published course they are actively enrolled in,
 *   when `passed` is 1 (idempotent); the recount of those enrollments; the course and
 *   learning-path pushes of an enrollment this completes (as a manual completion); the completion
 *   awards;
 * - #37 `quiz.auto_submitted` (auto_finalized), #38 `quiz.review_required` (finalized with answers
 *   pending), #40 `quiz.attempts_exhausted` (passed settled 0, no submitted attempt of the quiz
 *   passed or pending, every one of `max_attempts` submitted). Keys name the attempt, so a repeated
 *   settle sends nothing twice. Staff attempts complete nothing and notify nobody.
 */

export type SettleCtx = SchoolCtx<SchoolActor>;

export interface SettleTarget {
  attemptId: string;
  /** The quiz id, or SQL naming it (a read keyed by the attempt alone). */
  quizId: string | SQL;
  userId: string;
  actorRole: "student" | "curator" | "admin";
  /** Set for an attempt inside an exam section: it completes nothing and notifies nobody here. */
  examAttemptId?: string | null;
}

export interface SettlePlan {
  /** The reads the contributors of `attempt.settled` made in the read batch. */
  prepared: PreparedEvent;
}

export interface SettlePreparation {
  statements: BatchItem[];
  read(results: readonly unknown[]): SettlePlan;
}

const QUIZ_EVENTS = [eventDefinition("quiz.auto_submitted")!, eventDefinition("quiz.review_required")!, eventDefinition("quiz.attempts_exhausted")!];

const NO_PLAN: SettlePlan = { prepared: new Map() };

function forStudent(target: SettleTarget): boolean {
  return target.actorRole === "student" && !target.examAttemptId;
}

/** The completion of the quiz's `quiz_ref` blocks by the student's passed attempt (src/content/courses/ref-completion.ts). */
function quizCompletion(ctx: SettleCtx, target: SettleTarget): ReferenceCompletion {
  return {
    blockType: "quiz_ref",
    source: "quiz",
    refId: target.quizId,
    studentId: target.userId,
    passed: sql`EXISTS (SELECT 1 FROM quizzes lq WHERE lq.id = ${target.quizId} AND ${liveInSchool("lq", ctx.tenantId)})
      AND ${attemptIs(ctx, target, sql`sa.passed = 1`)}`,
  };
}

/** The attempt's score for its award, read after the scores statement wrote it. */
function quizScore(ctx: SettleCtx, target: SettleTarget): SettledScore {
  const { tenantId } = ctx;
  const column = (name: string) => sql`(SELECT ${sql.raw(`ra.${name}`)} FROM quiz_attempts ra WHERE ra.id = ${target.attemptId} AND ${inSchool("ra", tenantId)})`;
  return {
    objectId: target.quizId,
    studentId: target.userId,
    key: `quiz_attempt:${target.attemptId}`,
    pct: column("score_pct_hundredths"),
    passed: column("passed"),
    passingScore: sql`(SELECT rq.passing_score FROM quizzes rq WHERE rq.id = ${target.quizId} AND ${inSchool("rq", tenantId)})`,
    final: sql`${attemptIs(ctx, target, sql`sa.pending_review = 0`)}
      AND EXISTS (SELECT 1 FROM quizzes rq WHERE rq.id = ${target.quizId} AND ${liveInSchool("rq", tenantId)})`,
  };
}

function settledEvent(ctx: SettleCtx, target: SettleTarget, now: number, finalized = false): AttemptSettled {
  return { type: "attempt.settled", attempt: "quiz", attemptId: target.attemptId, now, finalized, score: quizScore(ctx, target), completes: quizCompletion(ctx, target) };
}

/**
 * Reads for the caller's read batch: the school's settings of the quiz's pushes and of the
 * contributors' (the rating awards' too), then the contributors' reads (the enrollments a pass may complete).
 */
export function prepareSettle(ctx: SettleCtx, target: SettleTarget): SettlePreparation {
  if (!forStudent(target)) return { statements: [], read: () => NO_PLAN };
  const prep = prepareContentEvent(ctx, settledEvent(ctx, target, ctx.clock.now()), QUIZ_EVENTS);
  const statements = [...prep.prefetch, ...prep.reads];
  return {
    statements,
    read(results) {
      return { prepared: prep.read(results.slice(0, prep.prefetch.length), results.slice(prep.prefetch.length, statements.length)) };
    },
  };
}

/** The settled scores, from the answers and the `max_score` the finalize stored. */
function scoresStatement(ctx: SettleCtx, target: SettleTarget, now: number): BatchItem {
  const max = sql`quiz_attempts.max_score_hundredths`;
  const pct = sql`(CASE WHEN COALESCE(${max}, 0) > 0 THEN MIN(10000, (s.score * 20000 + ${max}) / (2 * ${max})) ELSE 0 END)`;
  return batchable(
    ctx,
    sql`UPDATE quiz_attempts SET
        score_hundredths = s.score,
        score_pct_hundredths = ${pct},
        pending_review = s.pending,
        passed = CASE WHEN s.pending = 1 THEN NULL WHEN q.passing_score IS NULL THEN 1 WHEN ${pct} >= q.passing_score * 100 THEN 1 ELSE 0 END,
        updated_at = ${now}
      FROM (SELECT COALESCE(SUM(sa.awarded_hundredths), 0) AS score, EXISTS (SELECT 1 FROM quiz_attempt_answers sp
                WHERE ${inSchool("sp", ctx.tenantId)} AND sp.attempt_id = ${target.attemptId} AND sp.awarded_hundredths IS NULL) AS pending
            FROM quiz_attempt_answers sa WHERE ${inSchool("sa", ctx.tenantId)} AND sa.attempt_id = ${target.attemptId}) s,
        quizzes q
      WHERE quiz_attempts.id = ${target.attemptId} AND ${inSchool("quiz_attempts", ctx.tenantId)} AND quiz_attempts.status = 'submitted'
        AND q.id = quiz_attempts.quiz_id AND ${inSchool("q", ctx.tenantId)}`,
  );
}

/** SQL true when the attempt is submitted and `condition` (over alias `sa`) holds. */
function attemptIs(ctx: SettleCtx, target: SettleTarget, condition: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM quiz_attempts sa WHERE sa.id = ${target.attemptId} AND ${inSchool("sa", ctx.tenantId)} AND sa.status = 'submitted' AND ${condition})`;
}

async function quizEvents(ctx: SettleCtx, target: SettleTarget, finalized: SettleOptions["finalized"]): Promise<BatchItem[]> {
  const { tenantId } = ctx;
  const { attemptId, userId } = target;
  const column = (name: string) => sql`(SELECT ${sql.raw(`va.${name}`)} FROM quiz_attempts va WHERE va.id = ${attemptId} AND ${inSchool("va", tenantId)})`;
  const quizTitle = sql`(SELECT vq.title FROM quizzes vq WHERE vq.id = ${target.quizId} AND ${inSchool("vq", tenantId)})`;
  const maxAttempts = sql`(SELECT vq.max_attempts FROM quizzes vq WHERE vq.id = ${target.quizId} AND ${inSchool("vq", tenantId)})`;
  const studentName = sql`(SELECT su.first_name || ' ' || su.last_name FROM users su WHERE su.id = ${userId} AND ${inSchool("su", tenantId)})`;
  const student = { token: "student" as const, studentId: userId };
  const aggregate = { id: attemptId };
  const out: BatchItem[] = [];
  if (finalized === "auto_finalized") {
    out.push(
      await enqueue(
        ctx,
        "quiz.auto_submitted",
        student,
        { quiz_title: quizTitle, score: decimalTextSql(column("score_hundredths")), max_score: decimalTextSql(column("max_score_hundredths")) },
        aggregate,
        `quiz.auto_submitted:${attemptId}`,
        { when: attemptIs(ctx, target, sql`sa.auto_finalized = 1`) },
      ),
    );
  }
  if (finalized !== undefined) {
    const pendingCount = sql`(SELECT count(*) FROM quiz_attempt_answers pa WHERE ${inSchool("pa", tenantId)} AND pa.attempt_id = ${attemptId} AND pa.awarded_hundredths IS NULL)`;
    out.push(
      await enqueue(
        ctx,
        "quiz.review_required",
        { token: "student_curators_or_admins", studentId: userId },
        { student_name: studentName, quiz_title: quizTitle, pending_count: pendingCount },
        aggregate,
        `quiz.review_required:${attemptId}`,
        { when: attemptIs(ctx, target, sql`sa.pending_review = 1`) },
      ),
    );
  }
  const others = sql`FROM quiz_attempts xa WHERE ${inSchool("xa", tenantId)} AND xa.quiz_id = ${target.quizId} AND xa.user_id = ${userId}
    AND xa.exam_attempt_id IS NULL AND xa.status = 'submitted'`;
  const exhausted = sql`${attemptIs(ctx, target, sql`sa.passed = 0`)}
    AND ${maxAttempts} IS NOT NULL
    AND (SELECT count(*) ${others}) >= ${maxAttempts}
    AND NOT EXISTS (SELECT 1 ${others} AND (xa.passed IS NULL OR xa.passed = 1))`;
  out.push(
    await enqueue(
      ctx,
      "quiz.attempts_exhausted",
      { token: "student_curators", studentId: userId },
      { student_name: studentName, quiz_title: quizTitle, score_pct: decimalTextSql(column("score_pct_hundredths")), max_attempts: maxAttempts },
      aggregate,
      `quiz.attempts_exhausted:${attemptId}`,
      { when: exhausted },
    ),
  );
  return out;
}

export interface SettleOptions {
  /** The same batch makes the attempt `submitted`: by a submit, or past its deadline. */
  finalized?: "submitted" | "auto_finalized";
}

/**
 * The analytics figures follow the scores: the quiz's for an attempt outside an exam, the exam's
 * for a section's (its section means read the section's quiz attempt).
 */
function recordedEvent(ctx: SettleCtx, target: SettleTarget): AttemptRecorded {
  const { examAttemptId, userId } = target;
  return examAttemptId
    ? { type: "attempt.recorded", attempt: "exam", objectId: sql`(SELECT xa.exam_id FROM exam_attempts xa WHERE xa.id = ${examAttemptId} AND ${inSchool("xa", ctx.tenantId)})`, userId }
    : { type: "attempt.recorded", attempt: "quiz", objectId: target.quizId, userId };
}

/** The settling statements, to run after the batch's writes of answers (see the top of this file). */
export async function settleStatements(ctx: SettleCtx, target: SettleTarget, plan: SettlePlan, options: SettleOptions = {}): Promise<BatchItem[]> {
  const now = ctx.clock.now();
  const statements = [scoresStatement(ctx, target, now), ...(await contentStatements(ctx, recordedEvent(ctx, target)))];
  if (!forStudent(target)) return statements;
  statements.push(
    ...(await contentStatements(ctx, settledEvent(ctx, target, now, options.finalized !== undefined), plan.prepared)),
    ...(await quizEvents(ctx, target, options.finalized)),
  );
  return statements;
}
