import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import type { ErrorEntry } from "../../core/http/errors";

/**
 * What exams (built after quizzes) add to a quiz, each as SQL so it folds into the quiz reads'
 * own statements. Until the exams area registers its links, no quiz is used by an exam:
 * `published_via_exam` is false, `exam_refs` is empty and nothing keeps a quiz from being deleted.
 * An exam gives a student no read of a quiz: a section's questions come only through `go` in the
 * student's exam attempt.
 */
export interface QuizExamLinks {
  /** SQL true when a live, published exam uses the quiz (its id as SQL) as a section. */
  published(tenantId: string, quizId: SQL): SQL;
  /**
   * SQL text: the quiz's `exam_refs`, a JSON array of `{exam_id, exam_title, exam_status,
   * section_id, section_title}` (for a student, published exams only).
   */
  refsJson(ctx: Pick<SchoolCtx, "tenantId" | "actor">, quizId: SQL): SQL;
}

let links: QuizExamLinks = {
  published: () => sql`0`,
  refsJson: () => sql`'[]'`,
};

/** Called once by the exams area. */
export function registerQuizExamLinks(entry: QuizExamLinks): void {
  links = entry;
}

export function quizExamLinks(): QuizExamLinks {
  return links;
}

/**
 * What keeps a quiz from being deleted (409), one guard per area that links quizzes (exams:
 * `quiz_referenced_by_exam`). `DELETE /quizzes/:id` checks them in one read and repeats them as
 * the condition of its UPDATE, so a link made in between still wins.
 */
export interface QuizDeleteGuard {
  failure: ErrorEntry;
  /** SQL true when the quiz (its id as SQL) is held by this area. */
  holds(tenantId: string, quizId: SQL): SQL;
}

const guards: QuizDeleteGuard[] = [];

export function registerQuizDeleteGuard(guard: QuizDeleteGuard): void {
  guards.push(guard);
}

export function quizDeleteGuards(): readonly QuizDeleteGuard[] {
  return guards;
}
