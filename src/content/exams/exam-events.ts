import { sql, type SQL } from "drizzle-orm";
import { batchable, runBatch, type BatchItem } from "../../core/db/batch";
import { systemActor } from "../../core/school";
import { forSchoolId } from "../../platform/schools/lookup";
import type { ServiceContext } from "../../core/http/context";
import { MINUTE_MS } from "../../core/lib/clock";
import { eventDefinition } from "../../platform/notifications/catalog";
import { dispatchQueued, enqueue, timestamp } from "../../platform/notifications/enqueue";
import { schoolEvent } from "../../platform/notifications/settings";
import type { SettleCtx } from "../attempts/settle";
import type { TimerStart, TimerView } from "./timer-state";
import { inSchool } from "../../core/db/conditions";

/**
 * The exam attempt's pushes (docs/decisions/exams.md, "Exam attempts"). Only a student's attempt tells
 * anyone (rule 3: events about attempts count attempts of students); each is keyed
 * `{code}:{exam_attempt_id}:{recipient}`, since an attempt finishes once and is warned once, so a
 * repeated finish or alarm writes nothing twice.
 * - #42 `exam.auto_submitted` to the student when the deadline finished the attempt;
 * - #44 `exam.attempt_finished` to the student's curators on every finish, unless #45 replaces it
 *   (when the school has #45 on);
 * - #45 `exam.attempts_exhausted` to the student's curators: this attempt failed, no finished
 *   attempt of the exam passed, and the finished ones reach `max_attempts`;
 * - #43 `exam.time_warning` to the student from the timer's alarm 5 minutes before the deadline,
 *   once: `warned_at` is set by a conditional UPDATE in the same batch.
 */

export interface ExamFacts {
  title: string;
  passingScore: number | null;
  maxAttempts: number | null;
}

function studentNameSql(tenantId: string, userId: string): SQL {
  return sql`(SELECT su.first_name || ' ' || su.last_name FROM users su WHERE su.id = ${userId} AND ${inSchool("su", tenantId)})`;
}

/** #42, #44 and #45 for the finish's write batch, after its UPDATE of the attempt. */
export async function examFinishEvents(ctx: SettleCtx, view: TimerView, exam: ExamFacts, scorePct: string): Promise<BatchItem[]> {
  const { tenantId } = ctx;
  const { examAttemptId: id, examId, userId } = view.start;
  const finished = (condition: SQL = sql`1`) =>
    sql`EXISTS (SELECT 1 FROM exam_attempts fa WHERE fa.id = ${id} AND ${inSchool("fa", tenantId)} AND fa.status = 'submitted' AND ${condition})`;
  const others = sql`FROM exam_attempts xa WHERE ${inSchool("xa", tenantId)} AND xa.exam_id = ${examId} AND xa.user_id = ${userId} AND xa.status = 'submitted'`;
  const exhausted =
    exam.maxAttempts === null
      ? sql`0`
      : sql`(${finished(sql`fa.passed = 0`)} AND (SELECT count(*) ${others}) >= ${exam.maxAttempts} AND NOT EXISTS (SELECT 1 ${others} AND xa.passed = 1))`;
  // #45 replaces #44 for the same attempt, when the school sends #45 at all.
  const supersedes = exam.maxAttempts !== null && (await schoolEvent(ctx, tenantId, eventDefinition("exam.attempts_exhausted")!))?.event.enabled === true;
  const aggregate = { id };
  const studentName = studentNameSql(tenantId, userId);
  const out: BatchItem[] = [];
  if (view.closure?.autoFinalized) {
    out.push(
      await enqueue(ctx, "exam.auto_submitted", { token: "student", studentId: userId }, { exam_title: exam.title, score_pct: scorePct }, aggregate, `exam.auto_submitted:${id}`, {
        when: finished(sql`fa.auto_finalized = 1`),
      }),
    );
  }
  out.push(
    await enqueue(
      ctx,
      "exam.attempt_finished",
      { token: "student_curators", studentId: userId },
      { student_name: studentName, exam_title: exam.title, score_pct: scorePct, passing_score: exam.passingScore },
      aggregate,
      `exam.attempt_finished:${id}`,
      { when: supersedes ? sql`${finished()} AND NOT ${exhausted}` : finished() },
    ),
  );
  if (exam.maxAttempts !== null) {
    out.push(
      await enqueue(
        ctx,
        "exam.attempts_exhausted",
        { token: "student_curators", studentId: userId },
        { student_name: studentName, exam_title: exam.title, score_pct: scorePct, max_attempts: exam.maxAttempts },
        aggregate,
        `exam.attempts_exhausted:${id}`,
        { when: exhausted },
      ),
    );
  }
  return out;
}

/**
 * #43 from the timer's warning alarm: marks the attempt warned (only while it is in progress and
 * not warned yet) and, in the same batch, tells a student. A second run finds `warned_at` set and
 * writes nothing.
 */
export async function sendTimeWarning(services: ServiceContext, start: TimerStart): Promise<void> {
  const { tenantId, examAttemptId: id } = start;
  const ctx = await forSchoolId(services, tenantId, systemActor("exam_time_warning"));
  if (!ctx) return;
  const now = ctx.clock.now();
  const statements: BatchItem[] = [
    batchable(ctx, sql`UPDATE exam_attempts SET warned_at = ${now} WHERE id = ${id} AND ${inSchool(tenantId)} AND status = 'in_progress' AND warned_at IS NULL`),
  ];
  if (start.actorRole === "student") {
    const examTitle = sql`(SELECT we.title FROM exams we WHERE we.id = ${start.examId} AND ${inSchool("we", tenantId)})`;
    statements.push(
      await enqueue(
        ctx,
        "exam.time_warning",
        { token: "student", studentId: start.userId },
        { exam_title: examTitle, minutes_left: Math.max(1, Math.ceil((start.deadlineAt - now) / MINUTE_MS)), deadline: timestamp(start.deadlineAt) },
        { id },
        `exam.time_warning:${id}`,
        { when: sql`EXISTS (SELECT 1 FROM exam_attempts wa WHERE wa.id = ${id} AND ${inSchool("wa", tenantId)} AND wa.warned_at = ${now})` },
      ),
    );
  }
  await runBatch(ctx, statements);
  await dispatchQueued(ctx);
}
