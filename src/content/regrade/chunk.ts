import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { formatHundredths } from "../../core/db/decimal";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { prepareSettle, settleStatements, type SettleTarget } from "../attempts/settle";
import { prepareExamResettle } from "../exams/exam-finalize";
import { examFiguresRebuild } from "../exams/figures";
import { quizFiguresRebuild } from "../quizzes/figures";
import { regradeAwardsStatements } from "../rating/regrade-awards";
import { examOutcomesOf, outcomeOf, type ExamOutcome, type Outcome } from "./plan";
import { chunkRead, examAttemptsRead, examRowsFor, questionRead, regradeQuestion, regradeRead, rowsFor, type QuestionRow, type RegradeRow } from "./reads";
import { regradedPush } from "./push";

/**
 * One chunk of a real regrade (docs/decisions/regrade.md, "Chunks and the queue"): the next
 * `CHUNK` attempts of the regrade not re-scored yet, in one read batch and one write batch. Every
 * write that is not idempotent by itself is conditional on the attempt's item not being applied,
 * and the same batch marks the items applied, so a retried or concurrent chunk changes nothing
 * twice. The last chunk also marks the regrade done. Attempts inside exam sections re-derive their
 * finished exam attempts (docs/decisions/regrade.md, "Exam sections").
 */

export const CHUNK = 100;

type Ctx = SchoolCtx<SchoolActor>;

/** SQL true while attempt `attempt` (SQL) of the regrade is not re-scored yet. */
const pendingItem = (ctx: Ctx, regradeId: string, attempt: ReturnType<typeof sql>) =>
  sql`EXISTS (SELECT 1 FROM quiz_regrade_items pi WHERE ${inSchool("pi", ctx.tenantId)} AND pi.regrade_id = ${regradeId} AND pi.attempt_id = ${attempt} AND pi.applied_at IS NULL)`;

function answersUpdate(ctx: Ctx, regrade: RegradeRow, outcomes: readonly Outcome[]): BatchItem[] {
  const items = outcomes
    .filter((outcome) => outcome.answer !== null)
    .map((outcome) => ({ attempt_id: outcome.attemptId, awarded: outcome.answer!.awarded, correct: outcome.answer!.correct === null ? null : outcome.answer!.correct ? 1 : 0 }));
  if (items.length === 0) return [];
  return [
    batchable(
      ctx,
      sql`UPDATE quiz_attempt_answers SET awarded_hundredths = g.value ->> '$.awarded', is_correct = g.value ->> '$.correct'
        FROM json_each(${JSON.stringify(items)}) g
        WHERE ${inSchool("quiz_attempt_answers", ctx.tenantId)} AND quiz_attempt_answers.attempt_id = g.value ->> '$.attempt_id'
          AND quiz_attempt_answers.question_id = ${regrade.question_id}
          AND ${pendingItem(ctx, regrade.id, sql`quiz_attempt_answers.attempt_id`)}`,
    ),
  ];
}

/** The attempts settled again from their answers, as settle.ts does; a drop first takes the question's points out of `max_score`. */
function attemptsUpdate(ctx: Ctx, regrade: RegradeRow, ids: string): BatchItem {
  const t = ctx.tenantId;
  // D1 binds a JavaScript number as REAL: cast, or the percentage below divides as REAL (0 of 100 would be 0.5).
  const max = regrade.mode === "drop" ? sql`MAX(0, COALESCE(ca.max_score_hundredths, 0) - CAST(${regrade.points_hundredths} AS INTEGER))` : sql`ca.max_score_hundredths`;
  return batchable(
    ctx,
    sql`UPDATE quiz_attempts SET max_score_hundredths = s.max, score_hundredths = s.score, score_pct_hundredths = s.pct, pending_review = s.pending,
        passed = CASE WHEN s.pending = 1 THEN NULL WHEN s.passing_score IS NULL THEN 1 WHEN s.pct >= s.passing_score * 100 THEN 1 ELSE 0 END,
        updated_at = ${ctx.clock.now()}
      FROM (SELECT m.id, m.max, m.score, m.pending, m.passing_score,
              CASE WHEN COALESCE(m.max, 0) > 0 THEN MIN(10000, (m.score * 20000 + m.max) / (2 * m.max)) ELSE 0 END AS pct
            FROM (SELECT ca.id, ${max} AS max, cq.passing_score,
                    (SELECT COALESCE(SUM(sa.awarded_hundredths), 0) FROM quiz_attempt_answers sa WHERE ${inSchool("sa", t)} AND sa.attempt_id = ca.id) AS score,
                    EXISTS (SELECT 1 FROM quiz_attempt_answers sp WHERE ${inSchool("sp", t)} AND sp.attempt_id = ca.id AND sp.awarded_hundredths IS NULL) AS pending
                  FROM quiz_attempts ca JOIN quizzes cq ON cq.id = ca.quiz_id AND ${inSchool("cq", t)}
                  WHERE ${inSchool("ca", t)} AND ca.id IN (SELECT value FROM json_each(${ids})) AND ${pendingItem(ctx, regrade.id, sql`ca.id`)}) m) s
      WHERE quiz_attempts.id = s.id AND ${inSchool("quiz_attempts", t)}`,
  );
}

function itemsApplied(ctx: Ctx, regrade: RegradeRow, ids: string, now: number): BatchItem {
  const t = ctx.tenantId;
  const column = (name: string) => sql`(SELECT ${sql.raw(`na.${name}`)} FROM quiz_attempts na WHERE na.id = quiz_regrade_items.attempt_id AND ${inSchool("na", t)})`;
  return batchable(
    ctx,
    sql`UPDATE quiz_regrade_items SET applied_at = ${now}, new_score_pct_hundredths = ${column("score_pct_hundredths")}, new_passed = ${column("passed")}
      WHERE ${inSchool("quiz_regrade_items", t)} AND regrade_id = ${regrade.id} AND applied_at IS NULL AND attempt_id IN (SELECT value FROM json_each(${ids}))`,
  );
}

/** The regrade is done once no item is left; a later chunk of it finds it done and writes nothing. */
export function finishStatement(ctx: Ctx, regradeId: string, now: number): BatchItem {
  return batchable(
    ctx,
    sql`UPDATE quiz_regrades SET status = 'done', finished_at = ${now}
      WHERE id = ${regradeId} AND ${inSchool("quiz_regrades", ctx.tenantId)} AND status = 'running'
        AND NOT EXISTS (SELECT 1 FROM quiz_regrade_items fi WHERE ${inSchool("fi", ctx.tenantId)} AND fi.regrade_id = ${regradeId} AND fi.applied_at IS NULL)`,
  );
}

/** A changed attempt of a student: a quiz attempt outside exams, or an exam attempt the chunk re-derived. */
interface ChangedAttempt {
  userId: string;
  attemptId: string;
}

/** The changed student attempts the rating and the pushes follow: quiz attempts outside exams, then exam attempts. */
function changedAttempts(outcomes: readonly Outcome[], exams: readonly ExamOutcome[]) {
  return {
    quiz: outcomes.filter((o) => o.changed && o.actorRole === "student" && o.examAttemptId === null),
    exam: exams.filter((exam) => exam.changed && exam.actorRole === "student"),
  };
}

/** One student per changed attempt, named by their first changed attempt of the chunk (the rating key). */
function firstChangedPerStudent(attempts: readonly ChangedAttempt[]): [string, string][] {
  const first = new Map<string, string>();
  for (const { userId, attemptId } of attempts) {
    const seen = first.get(userId);
    if (seen === undefined || attemptId < seen) first.set(userId, attemptId);
  }
  return [...first.entries()];
}

/**
 * A student's attempt the regrade makes pass settles again through attempts/settle.ts, so its
 * `attempt.settled` completes what a pass completes (reference blocks, the course, paths,
 * certificates) and earns its award; a regrade never takes a completion or certificate back
 * (docs/decisions/regrade.md, "Completions and certificates"). One per student is enough: the
 * completions are the student's.
 */
function newlyPassed(regrade: RegradeRow, outcomes: readonly Outcome[]): SettleTarget[] {
  const seen = new Set<string>();
  const out: SettleTarget[] = [];
  for (const outcome of outcomes) {
    if (outcome.actorRole !== "student" || outcome.examAttemptId !== null || outcome.newPassed !== true || outcome.oldPassed === true || seen.has(outcome.userId)) continue;
    seen.add(outcome.userId);
    out.push({ attemptId: outcome.attemptId, quizId: regrade.quiz_id, userId: outcome.userId, actorRole: "student", examAttemptId: null });
  }
  return out;
}

/**
 * The exam attempts of students the regrade raises (a new pass, or a higher final percentage a
 * certificate's `min_exam_pct` may ask for) settle again as the exam's finish settles them: the
 * completion of their `exam_ref` blocks, the award under its own key, certificates
 * (docs/decisions/regrade.md, "Exam sections"). One per student, the highest.
 */
function raisedExams(exams: readonly ExamOutcome[]): ExamOutcome[] {
  const best = new Map<string, ExamOutcome>();
  for (const exam of exams) {
    if (exam.actorRole !== "student" || !(exam.newPct > exam.oldPct || (exam.newPassed && exam.oldPassed !== true))) continue;
    const key = `${exam.examId}:${exam.userId}`;
    const seen = best.get(key);
    if (seen === undefined || exam.newPct > seen.newPct) best.set(key, exam);
  }
  return [...best.values()];
}

/** The settle statements of the quiz attempts a regrade makes pass and of the exam attempts it raises, after one read batch for them all. */
async function passStatements(ctx: Ctx, targets: readonly SettleTarget[], exams: readonly ExamOutcome[]): Promise<BatchItem[]> {
  if (targets.length === 0 && exams.length === 0) return [];
  const preparations = [
    ...targets.map((target) => {
      const prep = prepareSettle(ctx, target);
      return { statements: prep.statements, write: (results: readonly unknown[]) => settleStatements(ctx, target, prep.read(results)) };
    }),
    ...exams.map((exam) => prepareExamResettle(ctx, { examAttemptId: exam.examAttemptId, examId: exam.examId, userId: exam.userId })),
  ];
  const results = await runBatch(
    ctx,
    preparations.flatMap((prep) => prep.statements),
  );
  const out: BatchItem[] = [];
  let offset = 0;
  for (const prep of preparations) {
    out.push(...(await prep.write(results.slice(offset, offset + prep.statements.length))));
    offset += prep.statements.length;
  }
  return out;
}

/**
 * The re-derived figures of the exam attempts (exams/exam-scoring.ts, computed by `examOutcomesOf`),
 * written while the section attempt's item is not applied, so a retried chunk writes nothing twice.
 */
function examAttemptsUpdate(ctx: Ctx, regrade: RegradeRow, exams: readonly ExamOutcome[]): BatchItem[] {
  if (exams.length === 0) return [];
  const t = ctx.tenantId;
  const rows = exams.map((exam) => ({
    id: exam.examAttemptId,
    section: exam.sectionAttemptId,
    score: exam.figures.finalScoreHundredths,
    max: exam.figures.finalMaxHundredths,
    pct: exam.figures.finalPctHundredths,
    passed: exam.figures.passed ? 1 : 0,
  }));
  return [
    batchable(
      ctx,
      sql`UPDATE exam_attempts SET final_score_hundredths = g.value ->> '$.score', final_max_hundredths = g.value ->> '$.max',
          final_score_pct_hundredths = g.value ->> '$.pct', passed = g.value ->> '$.passed', updated_at = ${ctx.clock.now()}
        FROM json_each(${JSON.stringify(rows)}) g
        WHERE exam_attempts.id = g.value ->> '$.id' AND ${inSchool("exam_attempts", t)} AND exam_attempts.status = 'submitted'
          AND ${pendingItem(ctx, regrade.id, sql`g.value ->> '$.section'`)}`,
    ),
  ];
}

/** The exams' analytics figures of the members whose exam attempts the chunk re-derived (`attempt.recorded` of an exam, as a set). */
function examFigureStatements(ctx: Ctx, exams: readonly ExamOutcome[]): BatchItem[] {
  const byExam = new Map<string, Set<string>>();
  for (const exam of exams) byExam.set(exam.examId, (byExam.get(exam.examId) ?? new Set()).add(exam.userId));
  return [...byExam.entries()].flatMap(([examId, users]) =>
    examFiguresRebuild(ctx, { objectId: examId, userIn: sql`SELECT value FROM json_each(${JSON.stringify([...users])})` }),
  );
}

/** The rating events of the students whose attempts changed: each exam's, then the quiz's, keyed by their first changed attempt of the chunk. */
function awardStatements(ctx: Ctx, regrade: RegradeRow, changed: ReturnType<typeof changedAttempts>, now: number): BatchItem[] {
  const key = { questionId: regrade.question_id, seq: regrade.seq, now };
  const byExam = new Map<string, ChangedAttempt[]>();
  for (const exam of changed.exam) byExam.set(exam.examId, [...(byExam.get(exam.examId) ?? []), { userId: exam.userId, attemptId: exam.examAttemptId }]);
  return [
    ...[...byExam.entries()].flatMap(([examId, attempts]) =>
      regradeAwardsStatements(ctx, { source: "exam", objectId: examId, students: firstChangedPerStudent(attempts), ...key }),
    ),
    ...regradeAwardsStatements(ctx, { source: "quiz", objectId: regrade.quiz_id, students: firstChangedPerStudent(changed.quiz), ...key }),
  ];
}

/** `quiz.regraded` to each student whose attempt changed, quiz attempt or exam attempt, sent once the attempt's item is applied by this chunk. */
async function pushStatements(ctx: Ctx, regrade: RegradeRow, quizTitle: string, changed: ReturnType<typeof changedAttempts>): Promise<BatchItem[]> {
  const pushes = [
    ...changed.quiz.map((o) => ({ attempt: { id: o.attemptId, type: "quiz_attempt" as const }, studentId: o.userId, title: quizTitle, oldPct: o.oldPct, newPct: o.newPct, item: o.attemptId })),
    ...changed.exam.map((x) => ({ attempt: { id: x.examAttemptId, type: "exam_attempt" as const }, studentId: x.userId, title: x.title, oldPct: x.oldPct, newPct: x.newPct, item: x.sectionAttemptId })),
  ];
  const out: BatchItem[] = [];
  for (const push of pushes) {
    out.push(
      await regradedPush(ctx, {
        regradeId: regrade.id,
        attempt: push.attempt,
        studentId: push.studentId,
        title: push.title,
        oldScore: formatHundredths(push.oldPct),
        newScore: formatHundredths(push.newPct),
        when: pendingItem(ctx, regrade.id, sql`${push.item}`),
      }),
    );
  }
  return out;
}

export interface ChunkResult {
  /** The regrade is done (this chunk finished it, or it was already). */
  done: boolean;
}

/** Re-scores the next chunk of the regrade and reports whether attempts are left. */
export async function applyChunk(ctx: Ctx, input: { regradeId: string; questionId: string }): Promise<ChunkResult> {
  const reads = await runBatch(ctx, [
    regradeRead(ctx, input.regradeId),
    questionRead(ctx, input.questionId, { deletedToo: true }),
    chunkRead(ctx, { regradeId: input.regradeId, questionId: input.questionId, limit: CHUNK + 1 }),
  ]);
  const regrade = rowsOf<RegradeRow>(reads[0])[0];
  const questionRow = rowsOf<QuestionRow>(reads[1])[0];
  if (!regrade || regrade.status !== "running" || !questionRow || regrade.question_id !== input.questionId) return { done: true };
  const rows = rowsFor(reads[2]);
  const chunk = rows.slice(0, CHUNK);
  // The points the regrade was claimed with, so a later edit of the question does not split one regrade in two.
  const question = { ...regradeQuestion(questionRow), pointsHundredths: regrade.points_hundredths };
  const outcomes = chunk.map((row) => outcomeOf(question, regrade.mode, row));
  const examReads = examAttemptsRead(ctx, chunk);
  const exams = examReads.length > 0 ? examOutcomesOf(examRowsFor((await runBatch(ctx, examReads))[0]), outcomes) : [];
  const now = ctx.clock.now();
  const ids = JSON.stringify(chunk.map((row) => row.id));
  const writes: BatchItem[] = [];
  if (chunk.length > 0) {
    writes.push(
      ...answersUpdate(ctx, regrade, outcomes),
      attemptsUpdate(ctx, regrade, ids),
      ...examAttemptsUpdate(ctx, regrade, exams),
      ...(await passStatements(ctx, newlyPassed(regrade, outcomes), raisedExams(exams))),
      ...examFigureStatements(ctx, exams),
    );
    const users = JSON.stringify([...new Set(chunk.map((row) => row.user_id))]);
    writes.push(...quizFiguresRebuild(ctx, { objectId: regrade.quiz_id, userIn: sql`SELECT value FROM json_each(${users})` }));
    const changed = changedAttempts(outcomes, exams);
    writes.push(...awardStatements(ctx, regrade, changed, now), ...(await pushStatements(ctx, regrade, question.quizTitle, changed)));
    writes.push(itemsApplied(ctx, regrade, ids, now));
  }
  writes.push(finishStatement(ctx, regrade.id, now));
  await runBatch(ctx, writes);
  await dispatchQueued(ctx);
  return { done: rows.length <= CHUNK };
}
