import * as schema from "../../src/db/schema";
import type { QuestionType, ScoringMode } from "../../src/db/schema";
import { uuidv7 } from "../../src/core/lib/ids";
import { insertCourseTree, insertEnrollment, type TreeOptions } from "./courses";
import { db } from "./factories";
import { examOfAttempt, rebuildActivityDays, rebuildExamFigures, rebuildQuizFigures } from "./figures";

/**
 * Quizzes written straight to D1, for tests of the readers, attempts, grading and audiences (the
 * authoring endpoints have their own tests). Every option has a default, so `insertQuiz(tenantId)`
 * is a quiz without questions and `insertQuiz(tenantId, { questions: [{ type: "single" }] })` a
 * one-question quiz whose first answer is the correct one.
 */

export interface QuestionSpec {
  type: QuestionType;
  prompt?: string;
  /** Hundredths of a point (100 = "1.00"). Default 100. */
  pointsHundredths?: number;
  scoringMode?: ScoringMode | null;
  imageAssetId?: string | null;
  /**
   * single / multiple. Default: two answers "A" (correct) and "B". Give `[]` for a choice question
   * without answers.
   */
  answers?: { text?: string; isCorrect?: boolean; imageAssetId?: string | null; deleted?: boolean }[];
  /** free_text. Default `["answer"]`. */
  correctText?: string[];
  /**
   * matching: rows with `left` are pairs, rows without are right-side distractors. Default two
   * pairs ("L1" → "R1", "L2" → "R2").
   */
  matches?: { left?: string | null; right: string; deleted?: boolean }[];
  deleted?: boolean;
}

export interface QuizSpec {
  title?: string;
  description?: string;
  maxAttempts?: number | null;
  timeLimitSeconds?: number | null;
  passingScore?: number | null;
  retakePolicy?: "best" | "last";
  defaultScoringMode?: ScoringMode;
  screenshotProtectionEnabled?: boolean;
  /** Random forms (05 section 2). Defaults null, false, false. */
  questionsPerAttempt?: number | null;
  shuffleQuestions?: boolean;
  shuffleAnswers?: boolean;
  deleted?: boolean;
  /** In position order (positions 0, 1, …). */
  questions?: QuestionSpec[];
}

export interface InsertedQuestion {
  id: string;
  type: QuestionType;
  /** Answer ids in position order (choice questions), deleted ones included. */
  answerIds: string[];
  /** Match row ids in position order (matching), distractors and deleted ones included. */
  matchIds: string[];
}

export interface InsertedQuiz {
  id: string;
  tenantId: string;
  questions: InsertedQuestion[];
}

let titleCounter = 0;

export async function insertQuiz(tenantId: string, spec: QuizSpec = {}): Promise<InsertedQuiz> {
  const now = Date.now();
  const id = uuidv7();
  await db()
    .insert(schema.quizzes)
    .values({
      id,
      tenantId,
      title: spec.title ?? `Quiz ${++titleCounter}`,
      description: spec.description ?? "",
      maxAttempts: spec.maxAttempts ?? null,
      timeLimitSeconds: spec.timeLimitSeconds ?? null,
      passingScore: spec.passingScore ?? null,
      retakePolicy: spec.retakePolicy ?? "best",
      defaultScoringMode: spec.defaultScoringMode ?? "all_or_nothing",
      screenshotProtectionEnabled: spec.screenshotProtectionEnabled ?? false,
      questionsPerAttempt: spec.questionsPerAttempt ?? null,
      shuffleQuestions: spec.shuffleQuestions ?? false,
      shuffleAnswers: spec.shuffleAnswers ?? false,
      createdAt: now,
      updatedAt: now,
      deletedAt: spec.deleted ? now : null,
    });
  const quiz: InsertedQuiz = { id, tenantId, questions: [] };
  for (const [position, question] of (spec.questions ?? []).entries()) {
    quiz.questions.push(await insertQuestion(tenantId, id, position, question, now));
  }
  return quiz;
}

async function insertQuestion(tenantId: string, quizId: string, position: number, spec: QuestionSpec, now: number): Promise<InsertedQuestion> {
  const id = uuidv7();
  const choice = spec.type === "single" || spec.type === "multiple";
  await db()
    .insert(schema.quizQuestions)
    .values({
      id,
      tenantId,
      quizId,
      type: spec.type,
      prompt: spec.prompt ?? `Question ${position + 1}`,
      imageAssetId: spec.imageAssetId ?? null,
      position,
      pointsHundredths: spec.pointsHundredths ?? 100,
      scoringMode: spec.scoringMode ?? null,
      correctText: spec.type === "free_text" ? (spec.correctText ?? ["answer"]) : [],
      createdAt: now,
      updatedAt: now,
      deletedAt: spec.deleted ? now : null,
    });
  const inserted: InsertedQuestion = { id, type: spec.type, answerIds: [], matchIds: [] };
  if (choice) {
    const answers = spec.answers ?? [{ text: "A", isCorrect: true }, { text: "B" }];
    for (const [answerPosition, answer] of answers.entries()) {
      const answerId = uuidv7();
      await db()
        .insert(schema.quizAnswers)
        .values({
          id: answerId,
          tenantId,
          quizId,
          questionId: id,
          text: answer.text ?? "",
          imageAssetId: answer.imageAssetId ?? null,
          isCorrect: answer.isCorrect ?? false,
          position: answerPosition,
          createdAt: now,
          deletedAt: answer.deleted ? now : null,
        });
      inserted.answerIds.push(answerId);
    }
  }
  if (spec.type === "matching") {
    const matches = spec.matches ?? [
      { left: "L1", right: "R1" },
      { left: "L2", right: "R2" },
    ];
    for (const [matchPosition, match] of matches.entries()) {
      const matchId = uuidv7();
      await db()
        .insert(schema.quizMatches)
        .values({
          id: matchId,
          tenantId,
          quizId,
          questionId: id,
          leftText: match.left ?? null,
          rightText: match.right,
          position: matchPosition,
          createdAt: now,
          deletedAt: match.deleted ? now : null,
        });
      inserted.matchIds.push(matchId);
    }
  }
  return inserted;
}

/**
 * A course tree whose blocks are all `quiz_ref` blocks naming the quiz (published by default, so
 * the quiz is published through it). `shape` etc. as `insertCourseTree`.
 */
export async function insertQuizCourse(tenantId: string, quizId: string, options: Omit<TreeOptions, "blockType" | "payload" | "refId"> = {}) {
  return insertCourseTree(tenantId, { ...options, blockType: "quiz_ref", payload: { quiz_id: quizId }, refId: quizId });
}

/**
 * The simplest way for a student to reach the quiz: a published course with one `quiz_ref` block
 * naming it and an active enrollment of each student. Returns the tree.
 */
export async function giveQuizAccess(tenantId: string, quizId: string, studentIds: readonly string[], options: Omit<TreeOptions, "blockType" | "payload" | "refId"> = {}) {
  const tree = await insertQuizCourse(tenantId, quizId, options);
  for (const studentId of studentIds) await insertEnrollment(tenantId, tree.courseId, studentId, { totalBlocks: tree.blockIds.length });
  return tree;
}

export interface AttemptSpec {
  actorRole?: "student" | "curator" | "admin";
  status?: "in_progress" | "submitted";
  examAttemptId?: string | null;
  startedAt?: number;
  deadlineAt?: number | null;
  /** Default: `startedAt` + 1 minute for submitted attempts, null otherwise. */
  submittedAt?: number | null;
  autoFinalized?: boolean;
  scoreHundredths?: number | null;
  maxScoreHundredths?: number | null;
  /** Hundredths of a percent (8250 = "82.50"). */
  scorePctHundredths?: number | null;
  pendingReview?: boolean;
  passed?: boolean | null;
}

/** An attempt row as the attempts area leaves it (no answers). Returns its id. */
export async function insertAttempt(tenantId: string, quizId: string, userId: string, spec: AttemptSpec = {}): Promise<string> {
  const id = uuidv7();
  const now = Date.now();
  const status = spec.status ?? "submitted";
  const startedAt = spec.startedAt ?? now - 60_000;
  await db()
    .insert(schema.quizAttempts)
    .values({
      id,
      tenantId,
      quizId,
      userId,
      actorRole: spec.actorRole ?? "student",
      status,
      examAttemptId: spec.examAttemptId ?? null,
      startedAt,
      deadlineAt: spec.deadlineAt ?? null,
      submittedAt: spec.submittedAt !== undefined ? spec.submittedAt : status === "submitted" ? startedAt + 60_000 : null,
      autoFinalized: spec.autoFinalized ?? false,
      scoreHundredths: spec.scoreHundredths ?? null,
      maxScoreHundredths: spec.maxScoreHundredths ?? null,
      scorePctHundredths: spec.scorePctHundredths ?? null,
      pendingReview: spec.pendingReview ?? false,
      passed: spec.passed ?? null,
      createdAt: now,
      updatedAt: now,
    });
  if (spec.examAttemptId) await rebuildExamFigures(tenantId, examOfAttempt(spec.examAttemptId), userId);
  else await rebuildQuizFigures(tenantId, quizId, userId);
  await rebuildActivityDays(tenantId, userId);
  return id;
}
