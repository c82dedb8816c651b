import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import { REF_BLOCK_TYPES, type RefBlockType } from "../common/ref-blocks";

/**
 * Reference blocks (`quiz_ref`, `assignment_ref`, `exam_ref`) name objects of areas built after
 * the course tree. Each rule about those objects that the course tree needs is one entry here,
 * written as SQL so it folds into the course tree's own statements (the block INSERT, the
 * completion INSERT, the module index) instead of costing a read of its own. Until an area
 * registers its entry, the school has none of its objects: every reference is
 * `block_ref_not_found`, an `assignment_ref` block is never submitted, a quiz has no question
 * count and no block embeds an object.
 */

/** The payload key that names the referenced object, per reference type. */
export const REF_PAYLOAD_KEYS: Record<RefBlockType, "quiz_id" | "assignment_id" | "exam_id"> = {
  quiz_ref: "quiz_id",
  assignment_ref: "assignment_id",
  exam_ref: "exam_id",
};

export function isRefBlockType(type: string): type is RefBlockType {
  return (REF_BLOCK_TYPES as readonly string[]).includes(type);
}

/** The object a reference block embeds in the full block, keyed by its field (`quiz`, `assignment`, `exam`). */
export type EmbeddedRef = Record<string, unknown>;

export interface BlockRefRules {
  /** SQL true when `id` names a live object of this kind in the school. */
  exists(tenantId: string, id: SQL): SQL;
  /**
   * The objects full blocks embed (the student's or staff view, by `ctx.actor`), for the ids the
   * blocks being read name; ids without an object are left out. Called only when a read carries
   * blocks of this type, after the read's own batch.
   */
  embed?(ctx: SchoolCtx, ids: readonly string[]): Promise<Map<string, EmbeddedRef>>;
}

const nothingExists: BlockRefRules = { exists: () => sql`0` };

const rules: Record<RefBlockType, BlockRefRules> = {
  quiz_ref: nothingExists,
  assignment_ref: nothingExists,
  exam_ref: nothingExists,
};

/** Called once by the quizzes, assignments and exams areas when they are built. */
export function registerBlockRef(type: RefBlockType, entry: BlockRefRules): void {
  rules[type] = entry;
}

export function blockRefRules(type: RefBlockType): BlockRefRules {
  return rules[type];
}

/** SQL true when the reference block's object (its id as SQL) is a live object of the school. */
export function blockRefExistsSql(type: RefBlockType, tenantId: string, id: SQL): SQL {
  return rules[type].exists(tenantId, id);
}

// ---------------------------------------------------------------------------------------------
// Completion through the areas

/**
 * SQL true when the student has a submitted, accepted or rejected submission of the assignment
 * (its id as SQL): what lets `POST /blocks/:id/complete` complete an `assignment_ref` block.
 */
type AssignmentSubmitted = (tenantId: string, assignmentId: SQL, studentId: string | SQL) => SQL;

let assignmentSubmitted: AssignmentSubmitted = () => sql`0`;

/** Called once by the assignments area. */
export function registerAssignmentSubmitted(check: AssignmentSubmitted): void {
  assignmentSubmitted = check;
}

export function assignmentSubmittedSql(tenantId: string, assignmentId: SQL, studentId: string | SQL): SQL {
  return assignmentSubmitted(tenantId, assignmentId, studentId);
}

// ---------------------------------------------------------------------------------------------
// The module index

/** SQL scalar: the number of questions of the quiz (its id as SQL), NULL when unknown. */
type QuizQuestionCount = (tenantId: string, quizId: SQL) => SQL;

let quizQuestionCount: QuizQuestionCount = () => sql`NULL`;

/** Called once by the quizzes area. */
export function registerQuizQuestionCount(count: QuizQuestionCount): void {
  quizQuestionCount = count;
}

/** `question_count` of a `quiz_ref` block in the module index (NULL until the quizzes area exists). */
export function quizQuestionCountSql(tenantId: string, refIdSql: SQL): SQL {
  return quizQuestionCount(tenantId, refIdSql);
}
