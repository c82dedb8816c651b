import { sql, type SQL } from "drizzle-orm";
import { runBatch } from "../../src/core/db/batch";
import { examFiguresRebuild } from "../../src/content/exams/figures";
import { quizFiguresRebuild } from "../../src/content/quizzes/figures";
import { schoolCtx } from "./school-ctx";
import { schoolD1 } from "./databases";
import { activityDaysStatements } from "../../scripts/lib/activity-days.mjs";

/**
 * Attempts written straight to D1 by the helpers skip the sources that keep the analytics figures
 * (docs/decisions/heavy-reads.md, "Analytics aggregates"); these rebuild the member's figures
 * afterwards, as the source's batch would have.
 */
export async function rebuildQuizFigures(tenantId: string, quizId: string, userId: string): Promise<void> {
  const ctx = await schoolCtx(tenantId);
  await runBatch(ctx, quizFiguresRebuild(ctx, { objectId: quizId, userId }));
}

export async function rebuildExamFigures(tenantId: string, examId: string | SQL, userId: string): Promise<void> {
  const ctx = await schoolCtx(tenantId);
  await runBatch(ctx, examFiguresRebuild(ctx, { objectId: examId, userId }));
}

/** The exam of an exam attempt, as SQL. */
export function examOfAttempt(examAttemptId: string): SQL {
  return sql`(SELECT xa.exam_id FROM exam_attempts xa WHERE xa.id = ${examAttemptId})`;
}

/**
 * Activity rows (completions, attempts, hand-ins) written straight to D1 skip the sources that keep
 * the daily activity flags (docs/decisions/heavy-reads.md, "Fourth pass: daily activity"); this
 * rebuilds the school's (or one member's) flags afterwards with the seeds' SQL.
 */
export async function rebuildActivityDays(tenantId: string, studentId?: string): Promise<void> {
  const d1 = await schoolD1(tenantId);
  await d1.batch(activityDaysStatements(tenantId, { studentId }).map((statement) => d1.prepare(statement)));
}
