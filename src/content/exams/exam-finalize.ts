import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { formatHundredths } from "../../core/db/decimal";
import { actingUserId, systemActor } from "../../core/school";
import { forSchoolId } from "../../platform/schools/lookup";
import type { PreparedEvent } from "../../core/events";
import type { ServiceContext } from "../../core/http/context";
import { log } from "../../core/lib/log";
import { eventDefinition } from "../../platform/notifications/catalog";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { confirmJournal, deadlineCtx, finalizeWrites, journalQuestions, scoringReads, type ScoringData } from "../attempts/finalize";
import { journal, journalStart } from "../attempts/journal";
import type { JournalView } from "../attempts/journal-state";
import type { SettleCtx } from "../attempts/settle";
import { contentStatements, prepareContentEvent, type AttemptSettled, type ReferenceCompletion, type SettledScore } from "../common/events";
import {
  examAttemptSql,
  sectionAttemptsSql,
  sectionResultsSql,
  sectionRowsOf,
  sectionScoreOf,
  type ExamAttemptRow,
  type SectionAttemptRow,
} from "./attempt-present";
import { examFinishEvents, type ExamFacts } from "./exam-events";
import { examFigures, type ExamFigures } from "./exam-scoring";
import type { SectionFiguresRow } from "./result";
import { timer } from "./timer";
import type { TimerView } from "./timer-state";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The one finish every path shares (docs/decisions/exams.md, "Exam attempts"): a submit, and past
 * `deadline_at` + grace a read, a `go`, a section save, a submit or the timer's alarm. The caller
 * has closed the timer (or found it closed and not confirmed). Then:
 * 1. one read: the attempt, its exam, the sections opened, and for a student the settings of the
 *    events and the enrollments a pass may complete;
 * 2. one read: what the quizzes' finalize needs of every opened section's quiz attempt;
 * 3. each section's journal is closed (a compare-and-set, as for a quiz submit) and one batch
 *    writes every section through the quizzes' finalize, then reads the sections' scores;
 * 4. one batch writes the final figures (`UPDATE … WHERE status = 'in_progress'`), for a student the
 *    attempt's points (source `exam`, key `exam_attempt:<id>`), the completion of their `exam_ref`
 *    blocks when passed (with the lesson, module and course points it brings), and #42/#44/#45,
 *    and reads the attempt back.
 * Every write is conditional or idempotent, so finishes that run at once (a submit and the alarm,
 * an alarm delivered twice) leave one set of rows and one of each push. The statements do not
 * grow with the number of questions.
 */

export interface FinishedExam {
  row: ExamAttemptRow;
  sectionAttempts: SectionAttemptRow[];
  results: SectionFiguresRow[];
}

const EXAM_EVENTS = [eventDefinition("exam.auto_submitted")!, eventDefinition("exam.attempt_finished")!, eventDefinition("exam.attempts_exhausted")!];

/**
 * The context of a finish: the owner's submit is the owner's action (they get no push about it);
 * a finish by the deadline, or one a read by someone else completes, is nobody's, so nobody is
 * left out of its pushes.
 */
export function finishCtx(ctx: SettleCtx, view: TimerView): SettleCtx {
  const ownSubmit = !view.closure?.autoFinalized && actingUserId(ctx.actor) === view.start.userId;
  return ownSubmit ? ctx : deadlineCtx(ctx);
}

/** The exam attempt a settle names. */
export type ExamAttemptRef = Pick<TimerView["start"], "examAttemptId" | "examId" | "userId">;

function examCompletion(ctx: SettleCtx, start: ExamAttemptRef): ReferenceCompletion {
  const { examAttemptId, examId, userId } = start;
  return {
    blockType: "exam_ref",
    source: "exam",
    refId: examId,
    studentId: userId,
    passed: sql`EXISTS (SELECT 1 FROM exams le WHERE le.id = ${examId} AND ${liveInSchool("le", ctx.tenantId)})
      AND EXISTS (SELECT 1 FROM exam_attempts pa WHERE pa.id = ${examAttemptId} AND ${inSchool("pa", ctx.tenantId)} AND pa.status = 'submitted' AND pa.passed = 1)`,
  };
}

/** The attempt's score for its award (`rating.scored-awards`), from the figures the batch's final UPDATE wrote. */
function examScore(ctx: SettleCtx, start: ExamAttemptRef): SettledScore {
  const { tenantId } = ctx;
  const { examAttemptId, examId, userId } = start;
  const column = (name: string) => sql`(SELECT ${sql.raw(`ra.${name}`)} FROM exam_attempts ra WHERE ra.id = ${examAttemptId} AND ${inSchool("ra", tenantId)})`;
  return {
    objectId: examId,
    studentId: userId,
    key: `exam_attempt:${examAttemptId}`,
    pct: column("final_score_pct_hundredths"),
    passed: column("passed"),
    passingScore: sql`(SELECT re.passing_score FROM exams re WHERE re.id = ${examId} AND ${inSchool("re", tenantId)})`,
    final: sql`EXISTS (SELECT 1 FROM exam_attempts ra WHERE ra.id = ${examAttemptId} AND ${inSchool("ra", tenantId)} AND ra.status = 'submitted')
      AND EXISTS (SELECT 1 FROM exams re WHERE re.id = ${examId} AND ${liveInSchool("re", tenantId)})`,
  };
}

/** A student's exam attempt settled: the contributors complete its `exam_ref` blocks (docs/domain-events.md). */
function settledEvent(ctx: SettleCtx, start: ExamAttemptRef, now: number, finalized = true): AttemptSettled {
  return { type: "attempt.settled", attempt: "exam", attemptId: start.examAttemptId, now, finalized, score: examScore(ctx, start), completes: examCompletion(ctx, start) };
}

/**
 * A finished attempt settled again after its figures were rewritten (a regrade, src/content/regrade):
 * the contributors' reads for the caller's read batch, then their statements (completion of the
 * `exam_ref` blocks when it now passes, the award under its own key, certificates), as the finish
 * settles it. Not a finish: no exam pushes.
 */
export function prepareExamResettle(ctx: SettleCtx, start: ExamAttemptRef) {
  const now = ctx.clock.now();
  const prep = prepareContentEvent(ctx, settledEvent(ctx, start, now, false));
  const statements = [...prep.prefetch, ...prep.reads];
  return {
    statements,
    write(results: readonly unknown[]): Promise<BatchItem[]> {
      const prepared = prep.read(results.slice(0, prep.prefetch.length), results.slice(prep.prefetch.length, statements.length));
      return contentStatements(ctx, settledEvent(ctx, start, now, false), prepared);
    },
  };
}

/** Step 1. */
async function readAttempt(ctx: SettleCtx, view: TimerView) {
  const { examAttemptId, examId } = view.start;
  const student = view.start.actorRole === "student";
  const prep = prepareContentEvent(ctx, settledEvent(ctx, view.start, ctx.clock.now()), EXAM_EVENTS);
  const extra: BatchItem[] = student ? [...prep.prefetch, ...prep.reads] : [];
  const results = await runBatch(ctx, [
    examAttemptSql(ctx, examAttemptId),
    batchable(ctx, sql`SELECT e.title, e.passing_score, e.max_attempts FROM exams e WHERE e.id = ${examId} AND ${inSchool("e", ctx.tenantId)}`),
    sectionAttemptsSql(ctx, examAttemptId),
    sectionResultsSql(ctx, examAttemptId),
    ...extra,
  ]);
  let prepared: PreparedEvent = new Map();
  if (student) prepared = prep.read(results.slice(4, 4 + prep.prefetch.length), results.slice(4 + prep.prefetch.length));
  return {
    row: rowsOf<ExamAttemptRow>(results[0])[0],
    exam: rowsOf<{ title: string; passing_score: number | null; max_attempts: number | null }>(results[1])[0],
    sectionAttempts: rowsOf<SectionAttemptRow>(results[2]),
    results: sectionRowsOf(results[3]),
    prepared,
  };
}

/** The section's journal closed (by this call or another): its view, for a write that is conditional anyway. */
async function closedSection(ctx: SettleCtx, data: ScoringData): Promise<JournalView | null> {
  const attempt = data.attempt!;
  const ensure = journalStart(ctx, attempt, journalQuestions(data.questions));
  const closed = await journal.close(ctx, attempt.id, { tenantId: ctx.tenantId, userId: attempt.user_id, ensure });
  if (closed.outcome === "closed_now") return closed.view;
  const found = await journal.read(ctx, attempt.id, { tenantId: ctx.tenantId });
  return found.outcome === "not_found" ? null : found.view;
}

/**
 * Steps 2 and 3: every opened section written through the quizzes' finalize; the sections' results
 * afterwards. The results are read in the same batch as the last state they describe: a finish
 * running alongside another may find every section written already, and must not score from
 * results read before that.
 */
async function finishSections(ctx: SettleCtx, examAttemptId: string, sectionAttempts: readonly SectionAttemptRow[], before: SectionFiguresRow[]): Promise<SectionFiguresRow[]> {
  if (sectionAttempts.length === 0) return before;
  const reads = sectionAttempts.map((section) => scoringReads(ctx, section.quiz_attempt_id, null));
  const results = await runBatch(ctx, [...reads.flatMap((read) => read.statements), sectionResultsSql(ctx, examAttemptId)]);
  let offset = 0;
  const open: ScoringData[] = [];
  for (const read of reads) {
    const data = read.read(results.slice(offset, offset + read.statements.length));
    offset += read.statements.length;
    if (data.attempt?.status === "in_progress") open.push(data);
  }
  if (open.length === 0) return sectionRowsOf(results[results.length - 1]);
  const views = await Promise.all(open.map((data) => closedSection(ctx, data)));
  const writes: BatchItem[] = [];
  for (const [i, data] of open.entries()) {
    const view = views[i];
    // The last two statements read the quiz attempt back: the exam reads its sections' results instead.
    if (view) writes.push(...(await finalizeWrites(ctx, data, view)).slice(0, -2));
  }
  const written = await runBatch(ctx, [...writes, sectionResultsSql(ctx, examAttemptId)]);
  await Promise.all(open.map((data) => confirmJournal(ctx, data.attempt!.id)));
  return sectionRowsOf(written[written.length - 1]);
}

function finalUpdate(ctx: SettleCtx, view: TimerView, figures: ExamFigures, now: number): BatchItem {
  const closure = view.closure!;
  return batchable(
    ctx,
    sql`UPDATE exam_attempts SET status = 'submitted', submitted_at = ${closure.submittedAt}, auto_finalized = ${closure.autoFinalized ? 1 : 0},
        final_score_hundredths = ${figures.finalScoreHundredths}, final_max_hundredths = ${figures.finalMaxHundredths},
        final_score_pct_hundredths = ${figures.finalPctHundredths}, passed = ${figures.passed ? 1 : 0}, updated_at = ${now}
      WHERE id = ${view.start.examAttemptId} AND ${inSchool(ctx.tenantId)} AND status = 'in_progress'`,
  );
}

/** Finishes the attempt of a closed timer; the attempt as it is afterwards. The caller confirms the timer. */
export async function finalizeExam(ctx: SettleCtx, view: TimerView): Promise<FinishedExam> {
  const { examAttemptId } = view.start;
  const read = await readAttempt(ctx, view);
  if (!read.row) throw new Error(`exam finalize: attempt ${examAttemptId} has no row`);
  if (read.row.status === "submitted") return { row: read.row, sectionAttempts: read.sectionAttempts, results: read.results };

  const results = await finishSections(ctx, examAttemptId, read.sectionAttempts, read.results);
  const figures = examFigures(results.map(sectionScoreOf), read.exam?.passing_score ?? null);
  const now = ctx.clock.now();
  const writes: BatchItem[] = [
    finalUpdate(ctx, view, figures, now),
    ...(await contentStatements(ctx, { type: "attempt.recorded", attempt: "exam", objectId: view.start.examId, userId: view.start.userId })),
  ];
  if (view.start.actorRole === "student") {
    const facts: ExamFacts = { title: read.exam?.title ?? "", passingScore: read.exam?.passing_score ?? null, maxAttempts: read.exam?.max_attempts ?? null };
    writes.push(
      ...(await contentStatements(ctx, settledEvent(ctx, view.start, now), read.prepared)),
      ...(await examFinishEvents(ctx, view, facts, formatHundredths(figures.finalPctHundredths))),
    );
  }
  const written = await runBatch(ctx, [...writes, examAttemptSql(ctx, examAttemptId), sectionAttemptsSql(ctx, examAttemptId), sectionResultsSql(ctx, examAttemptId)]);
  await dispatchQueued(ctx);
  const n = writes.length;
  return { row: rowsOf<ExamAttemptRow>(written[n])[0]!, sectionAttempts: rowsOf<SectionAttemptRow>(written[n + 1]), results: sectionRowsOf(written[n + 2]) };
}

/** Tells the timer D1 holds the attempt. A lost confirmation costs only a repeated, idempotent finish by the retry alarm. */
export async function confirmTimer(ctx: Pick<SettleCtx, "env">, examAttemptId: string): Promise<void> {
  try {
    await timer.confirm(ctx, examAttemptId);
  } catch (err) {
    log.warn("exam timer not confirmed; its alarm finishes again", { exam_attempt_id: examAttemptId, error: String(err) });
  }
}

/** A request's finish of a timer it closed (or found closed and not written): finalize, then confirm. */
export async function finishClosed(ctx: SettleCtx, view: TimerView): Promise<FinishedExam> {
  const finished = await finalizeExam(finishCtx(ctx, view), view);
  await confirmTimer(ctx, view.start.examAttemptId);
  return finished;
}

/** The timer's alarm: finish outside any request (the object confirms itself afterwards), with the object's platform context. */
export async function finalizeExamByDeadline(services: ServiceContext, view: TimerView): Promise<void> {
  const ctx = await forSchoolId(services, view.start.tenantId, systemActor("exam_deadline"));
  // A deleted school's attempts are gone with it: nothing is left to finish.
  if (ctx) await finalizeExam(ctx, view);
}
