import * as schema from "../../src/db/schema";
import { uuidv7 } from "../../src/core/lib/ids";
import { db } from "./factories";
import { insertAttempt } from "./quizzes";
import { rebuildActivityDays, rebuildExamFigures } from "./figures";

/**
 * Exams written straight to D1, for tests of the readers, attempts, analytics and audiences (the
 * authoring endpoints have their own tests). Every option has a default, so
 * `insertExam(tenantId, { sections: [{ quizId }] })` is a published one-hour exam with one section
 * of weight 1. Quizzes come from `insertQuiz` (test/helpers/quizzes.ts).
 */

export interface SectionSpec {
  quizId: string;
  /** 1-1000. Default 1. */
  weight?: number;
  title?: string;
  deleted?: boolean;
}

export interface ExamSpec {
  /** Default `published` (with `published_at` set). */
  status?: "draft" | "published";
  /** Default: the insert time for a published exam, null for a draft. Set it on a draft that was published once. */
  publishedAt?: number | null;
  title?: string;
  description?: string;
  /** Default 3600. */
  timeLimitSeconds?: number;
  passingScore?: number | null;
  maxAttempts?: number | null;
  retakePolicy?: "best" | "last";
  screenshotProtectionEnabled?: boolean;
  deleted?: boolean;
  /** In position order (positions 0, 1, …). */
  sections?: SectionSpec[];
}

export interface InsertedExam {
  id: string;
  tenantId: string;
  /** Section ids in position order, deleted ones included. */
  sectionIds: string[];
}

let titleCounter = 0;

export async function insertExam(tenantId: string, spec: ExamSpec = {}): Promise<InsertedExam> {
  const now = Date.now();
  const id = uuidv7();
  const status = spec.status ?? "published";
  await db()
    .insert(schema.exams)
    .values({
      id,
      tenantId,
      title: spec.title ?? `Exam ${++titleCounter}`,
      description: spec.description ?? "",
      timeLimitSeconds: spec.timeLimitSeconds ?? 3600,
      passingScore: spec.passingScore ?? null,
      maxAttempts: spec.maxAttempts ?? null,
      retakePolicy: spec.retakePolicy ?? "best",
      screenshotProtectionEnabled: spec.screenshotProtectionEnabled ?? false,
      status,
      publishedAt: spec.publishedAt !== undefined ? spec.publishedAt : status === "published" ? now : null,
      createdAt: now,
      updatedAt: now,
      deletedAt: spec.deleted ? now : null,
    });
  const exam: InsertedExam = { id, tenantId, sectionIds: [] };
  for (const [position, section] of (spec.sections ?? []).entries()) {
    const sectionId = uuidv7();
    await db()
      .insert(schema.examSections)
      .values({
        id: sectionId,
        tenantId,
        examId: id,
        quizId: section.quizId,
        title: section.title ?? `Section ${position + 1}`,
        position,
        weight: section.weight ?? 1,
        createdAt: now,
        updatedAt: now,
        deletedAt: section.deleted ? now : null,
      });
    exam.sectionIds.push(sectionId);
  }
  return exam;
}

/** A visited section of an exam attempt: its quiz attempt (inside the exam) with these figures. */
export interface SectionAttemptSpec {
  sectionId: string;
  quizId: string;
  /** The quiz attempt's score and max in hundredths of a point. Default 0 of 100. */
  scoreHundredths?: number;
  maxScoreHundredths?: number;
  /** Default: the exam attempt's status. */
  status?: "in_progress" | "submitted";
  /** The section attempt's `position`. Default: its index in `sections`. */
  position?: number;
}

export interface ExamAttemptSpec {
  actorRole?: "student" | "curator" | "admin";
  status?: "in_progress" | "submitted";
  startedAt?: number;
  /** Default `startedAt` + 1 hour. */
  deadlineAt?: number;
  /** Default: `startedAt` + 1 minute for submitted attempts, null otherwise. */
  submittedAt?: number | null;
  autoFinalized?: boolean;
  /** Final figures in hundredths (`finalMaxHundredths` = Σ weights × 100); null while in progress. */
  finalScoreHundredths?: number | null;
  finalMaxHundredths?: number | null;
  /** Hundredths of a percent (8250 = "82.50"). */
  finalScorePctHundredths?: number | null;
  passed?: boolean | null;
  warnedAt?: number | null;
  /** Visited sections, each with a quiz attempt row naming the exam attempt. */
  sections?: SectionAttemptSpec[];
}

export interface InsertedExamAttempt {
  id: string;
  /** The section attempts in the order given: their row id and quiz attempt id. */
  sections: { id: string; sectionId: string; quizAttemptId: string }[];
}

/** An exam attempt row as the exam attempts area leaves it, with its visited sections. */
export async function insertExamAttempt(tenantId: string, examId: string, userId: string, spec: ExamAttemptSpec = {}): Promise<InsertedExamAttempt> {
  const id = uuidv7();
  const now = Date.now();
  const status = spec.status ?? "submitted";
  const startedAt = spec.startedAt ?? now - 60_000;
  const deadlineAt = spec.deadlineAt ?? startedAt + 3_600_000;
  const submittedAt = spec.submittedAt !== undefined ? spec.submittedAt : status === "submitted" ? startedAt + 60_000 : null;
  const actorRole = spec.actorRole ?? "student";
  await db()
    .insert(schema.examAttempts)
    .values({
      id,
      tenantId,
      examId,
      userId,
      actorRole,
      status,
      startedAt,
      deadlineAt,
      submittedAt,
      autoFinalized: spec.autoFinalized ?? false,
      finalScoreHundredths: spec.finalScoreHundredths ?? null,
      finalMaxHundredths: spec.finalMaxHundredths ?? null,
      finalScorePctHundredths: spec.finalScorePctHundredths ?? null,
      passed: spec.passed ?? null,
      warnedAt: spec.warnedAt ?? null,
      createdAt: now,
      updatedAt: now,
    });
  const inserted: InsertedExamAttempt = { id, sections: [] };
  for (const [position, section] of (spec.sections ?? []).entries()) {
    const sectionStatus = section.status ?? status;
    const score = section.scoreHundredths ?? 0;
    const max = section.maxScoreHundredths ?? 100;
    const quizAttemptId = await insertAttempt(tenantId, section.quizId, userId, {
      actorRole,
      status: sectionStatus,
      examAttemptId: id,
      startedAt,
      deadlineAt,
      submittedAt: sectionStatus === "submitted" ? (submittedAt ?? startedAt + 60_000) : null,
      scoreHundredths: sectionStatus === "submitted" ? score : null,
      maxScoreHundredths: max,
      scorePctHundredths: sectionStatus === "submitted" ? (max === 0 ? 0 : Math.floor((score * 10_000 * 2 + max) / (2 * max))) : null,
      passed: sectionStatus === "submitted" ? true : null,
    });
    const sectionAttemptId = uuidv7();
    await db().insert(schema.examSectionAttempts).values({
      id: sectionAttemptId,
      tenantId,
      examAttemptId: id,
      examSectionId: section.sectionId,
      quizAttemptId,
      position: section.position ?? position,
      createdAt: now,
    });
    inserted.sections.push({ id: sectionAttemptId, sectionId: section.sectionId, quizAttemptId });
  }
  await rebuildExamFigures(tenantId, examId, userId);
  await rebuildActivityDays(tenantId, userId);
  return inserted;
}
