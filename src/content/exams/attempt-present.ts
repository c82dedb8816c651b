import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, type BatchItem } from "../../core/db/batch";
import { formatHundredthsOrNull } from "../../core/db/decimal";
import type { SchoolCtx, SchoolActor } from "../../core/http/context";
import { iso, isoOrNull } from "../../core/lib/clock";
import { attemptTimeLimitSeconds, remainingSeconds } from "../attempts/journal-state";
import type { SectionScore } from "./exam-scoring";
import { attemptSectionsJsonSql, presentSectionFigures, type SectionFiguresRow } from "./result";
import { inSchool } from "../../core/db/conditions";

/**
 * The exam attempt as every exam-attempt endpoint answers it (docs/decisions/exams.md, "Exam attempts"):
 * the row, the sections opened so far (`section_attempts`), the final figures (null while in
 * progress) and, once finished, each live section's figures (as the exam's `result` shows them);
 * always `server_now` and
 * `remaining_seconds`, so no client counts time on its own clock.
 */

type Ctx = SchoolCtx<SchoolActor>;

/** An exam attempt row as `EXAM_ATTEMPT_COLUMNS` reads it (alias `ea`). */
export interface ExamAttemptRow {
  id: string;
  tenant_id: string;
  exam_id: string;
  user_id: string;
  actor_role: "student" | "curator" | "admin";
  status: "in_progress" | "submitted";
  started_at: number;
  deadline_at: number;
  submitted_at: number | null;
  auto_finalized: number;
  final_score_hundredths: number | null;
  final_max_hundredths: number | null;
  final_score_pct_hundredths: number | null;
  passed: number | null;
}

export const EXAM_ATTEMPT_COLUMNS = sql`ea.id, ea.tenant_id, ea.exam_id, ea.user_id, ea.actor_role, ea.status, ea.started_at, ea.deadline_at,
  ea.submitted_at, ea.auto_finalized, ea.final_score_hundredths, ea.final_max_hundredths, ea.final_score_pct_hundredths, ea.passed`;

export interface SectionAttemptRow {
  id: string;
  exam_section_id: string;
  quiz_attempt_id: string;
  position: number;
}

/** The exam attempt (alias `ea`) of the school; `condition` narrows it (owner, scope, status). */
export function examAttemptSql(ctx: Ctx, attemptId: string, condition: SQL = sql`1`): BatchItem {
  return batchable(ctx, sql`SELECT ${EXAM_ATTEMPT_COLUMNS} FROM exam_attempts ea WHERE ea.id = ${attemptId} AND ${inSchool("ea", ctx.tenantId)} AND ${condition}`);
}

/** The sections opened in the attempt, by the position they had when opened. */
export function sectionAttemptsSql(ctx: Ctx, attemptId: string | SQL): BatchItem {
  return batchable(
    ctx,
    sql`SELECT esa.id, esa.exam_section_id, esa.quiz_attempt_id, esa.position FROM exam_section_attempts esa
      WHERE ${inSchool("esa", ctx.tenantId)} AND esa.exam_attempt_id = ${attemptId} ORDER BY esa.position, esa.created_at, esa.id`,
  );
}

/**
 * One row: `sections`, the JSON of every live section of the attempt's exam in position order with
 * the figures of its quiz attempt in this exam attempt (src/content/exams/result.ts), read with
 * `sectionRowsOf`.
 */
export function sectionResultsSql(ctx: Ctx, attemptId: string | SQL): BatchItem {
  return batchable(
    ctx,
    sql`SELECT ${attemptSectionsJsonSql(ctx.tenantId, sql`ra.exam_id`, sql`ra.id`)} AS sections
      FROM exam_attempts ra WHERE ra.id = ${attemptId} AND ${inSchool("ra", ctx.tenantId)}`,
  );
}

export function sectionRowsOf(result: unknown): SectionFiguresRow[] {
  const [row] = rowsOf<{ sections: string }>(result);
  return row ? (JSON.parse(row.sections) as SectionFiguresRow[]) : [];
}

/** A section's figures as exam scoring reads them: a section never opened (or never scored) counts 0. */
export function sectionScoreOf(row: SectionFiguresRow): SectionScore {
  return {
    weight: row.weight,
    score: row.max_hundredths === null ? null : { scoreHundredths: row.score_hundredths ?? 0, maxHundredths: row.max_hundredths },
  };
}

export function presentExamAttempt(row: ExamAttemptRow, sectionAttempts: readonly SectionAttemptRow[], results: readonly SectionFiguresRow[], now: number) {
  const finished = row.status === "submitted";
  return {
    id: row.id,
    exam_id: row.exam_id,
    user_id: row.user_id,
    status: row.status,
    actor_role: row.actor_role,
    started_at: iso(row.started_at),
    deadline_at: iso(row.deadline_at),
    time_limit_seconds: attemptTimeLimitSeconds(row.started_at, row.deadline_at)!,
    submitted_at: isoOrNull(row.submitted_at),
    auto_finalized: row.auto_finalized === 1,
    section_attempts: sectionAttempts.map((section) => ({
      id: section.id,
      exam_section_id: section.exam_section_id,
      quiz_attempt_id: section.quiz_attempt_id,
      position: section.position,
    })),
    final_score: formatHundredthsOrNull(row.final_score_hundredths),
    final_max_score: formatHundredthsOrNull(row.final_max_hundredths),
    final_score_pct: formatHundredthsOrNull(row.final_score_pct_hundredths),
    passed: row.passed === null ? null : row.passed === 1,
    ...(finished ? { sections: results.map(presentSectionFigures) } : {}),
    server_now: iso(now),
    remaining_seconds: finished ? 0 : remainingSeconds(row.deadline_at, now)!,
  };
}

export type ExamAttemptView = ReturnType<typeof presentExamAttempt>;
