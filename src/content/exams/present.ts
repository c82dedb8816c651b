import { effectiveMaxAttempts, effectiveTimeLimit, profileOf } from "../accommodations/effective";
import type { SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import type { EXAM_STATUSES, RETAKE_POLICIES } from "../../db/schema";
import { isStaff } from "../common/access";
import { presentExamResult, type ResultRow } from "./result";

export { presentExamResult, presentSectionFigures, type ExamResultView } from "./result";

type Presenter = Pick<SchoolCtx, "actor">;

/** An exam's columns as the reads select them (alias `e`). */
export interface ExamRow {
  id: string;
  tenant_id: string;
  title: string;
  description: string;
  time_limit_seconds: number;
  passing_score: number | null;
  max_attempts: number | null;
  retake_policy: (typeof RETAKE_POLICIES)[number];
  screenshot_protection_enabled: number;
  status: (typeof EXAM_STATUSES)[number];
  created_at: number;
  updated_at: number;
}

/** What a student's read adds: JSON texts from the student's own attempts. */
export interface StudentExamRow extends ExamRow {
  attempts_count: number;
  /** The student's accommodation (null without a profile). */
  acc_multiplier: number | null;
  acc_extra_time: number | null;
  acc_extra_attempts: number | null;
  in_progress: string | null;
  result: string | null;
}

export interface SectionRow {
  id: string;
  exam_id: string;
  quiz_id: string;
  title: string;
  position: number;
  weight: number;
  question_count: number;
}

export interface ExamListRow extends ExamRow {
  section_count: number;
}

function presentExamFields(row: ExamRow) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    title: row.title,
    description: row.description,
    time_limit_seconds: row.time_limit_seconds,
    passing_score: row.passing_score,
    max_attempts: row.max_attempts,
    retake_policy: row.retake_policy,
    screenshot_protection_enabled: row.screenshot_protection_enabled === 1,
    status: row.status,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function presentSection(row: Omit<SectionRow, "exam_id" | "question_count">) {
  return { id: row.id, quiz_id: row.quiz_id, title: row.title, position: row.position, weight: row.weight };
}

/**
 * The exam in the caller's view: staff get the exam with its sections; a student also gets their
 * result by the retake policy, the attempt in progress, the number of finished attempts and the
 * access fields (every student of the school may take a published exam; no access end date).
 */
export function presentExam(ctx: Presenter, row: ExamRow | StudentExamRow, sections: readonly SectionRow[]) {
  const exam = {
    ...presentExamFields(row),
    sections: sections.map((section) => ({ ...presentSection(section), question_count: section.question_count })),
  };
  if (isStaff(ctx.actor) || !("attempts_count" in row)) return exam;
  const inProgress = row.in_progress === null ? null : (JSON.parse(row.in_progress) as { attempt_id: string; started_at: number; deadline_at: number });
  return {
    ...exam,
    result: row.result === null ? null : presentExamResult(JSON.parse(row.result) as ResultRow),
    in_progress_attempt: inProgress && { attempt_id: inProgress.attempt_id, started_at: iso(inProgress.started_at), deadline_at: iso(inProgress.deadline_at) },
    attempts_count: row.attempts_count,
    // The caller's own limits (docs/decisions/accommodations.md, "Student views"); the profile itself stays hidden.
    effective_time_limit_seconds: effectiveTimeLimit(row.time_limit_seconds, profileOf(row, true))!,
    effective_max_attempts: effectiveMaxAttempts(row.max_attempts, profileOf(row, true)),
    auth_has_access: true,
    has_access_untill: null as string | null,
  };
}

export type ExamView = ReturnType<typeof presentExam>;

export function presentExamListItem(row: ExamListRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    time_limit_seconds: row.time_limit_seconds,
    passing_score: row.passing_score,
    max_attempts: row.max_attempts,
    retake_policy: row.retake_policy,
    screenshot_protection_enabled: row.screenshot_protection_enabled === 1,
    section_count: row.section_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
