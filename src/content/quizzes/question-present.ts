import { and, asc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { runBatch } from "../../core/db/batch";
import { formatHundredths } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import { quizAnswers, quizMatches, quizQuestions, type QuestionType, type ScoringMode } from "../../db/schema";
import { mediaUrl } from "../../platform/media/links";
import { sealMatchToken } from "./match-tokens";
import { inSchool } from "../../core/db/conditions";

/**
 * Questions as clients read them, staff and student views, for any number of quizzes at once:
 * the quiz detail, the student's quiz, reference-block embeds and the question endpoints all go
 * through here, so the student view is built in one place. Image asset ids never leave the
 * server (each read signs fresh links), and the student view never carries what would give an
 * answer away: `is_correct`, `correct_text`, `scoring_mode`, or a matching row's id on its
 * right-hand side (each read seals new tokens, opened again when answers are saved).
 */

export type QuestionViewKind = "staff" | "student";

export interface StaffAnswer {
  id: string;
  text: string;
  image_url: string | null;
  is_correct: boolean;
  position: number;
}

export interface StaffQuestion {
  id: string;
  quiz_id: string;
  type: QuestionType;
  prompt: string;
  image_url: string | null;
  position: number;
  points: string;
  scoring_mode: ScoringMode | null;
  answers: StaffAnswer[];
  correct_text: string[];
  matches: { id: string; left_text: string | null; right_text: string; position: number }[];
  created_at: string;
  updated_at: string;
}

export interface StudentQuestion {
  id: string;
  type: QuestionType;
  prompt: string;
  image_url: string | null;
  position: number;
  points: string;
  answers?: { id: string; text: string; image_url: string | null; position: number }[];
  match_lefts?: { id: string; text: string }[];
  match_rights?: { id: string; text: string }[];
}

export type QuestionView = StaffQuestion | StudentQuestion;

/** Which live questions to read: every one of some quizzes, or a single question. */
export type QuestionScope = { quizIds: readonly string[] } | { questionId: string };

function scopeWhere(ctx: SchoolCtx, scope: QuestionScope, quizId: typeof quizQuestions.quizId, questionId: typeof quizQuestions.id): SQL {
  // The ids travel as one JSON parameter, so any number of quizzes stays one statement.
  return "questionId" in scope ? eq(questionId, scope.questionId) : sql`${quizId} IN (SELECT value FROM json_each(${JSON.stringify(scope.quizIds)}))`;
}

/**
 * The three SELECTs of a question read (questions, answers, matches; live rows of the school),
 * for a caller that runs them inside its own batch (a write followed by its read-back); results go
 * to `presentQuestionRows`. Answers and matches of deleted questions are left out by the join.
 */
export function questionQueries(ctx: SchoolCtx, scope: QuestionScope) {
  const t = ctx.tenantId;
  const liveQuestion = and(inSchool(quizQuestions, t), isNull(quizQuestions.deletedAt));
  return [
    ctx.db
      .select()
      .from(quizQuestions)
      .where(and(liveQuestion, scopeWhere(ctx, scope, quizQuestions.quizId, quizQuestions.id)))
      .orderBy(asc(quizQuestions.quizId), asc(quizQuestions.position), asc(quizQuestions.id)),
    ctx.db
      .select({ answer: quizAnswers })
      .from(quizAnswers)
      .innerJoin(quizQuestions, eq(quizQuestions.id, quizAnswers.questionId))
      .where(and(inSchool(quizAnswers, t), isNull(quizAnswers.deletedAt), liveQuestion, scopeWhere(ctx, scope, quizQuestions.quizId, quizQuestions.id)))
      .orderBy(asc(quizAnswers.questionId), asc(quizAnswers.position), asc(quizAnswers.id)),
    ctx.db
      .select({ match: quizMatches })
      .from(quizMatches)
      .innerJoin(quizQuestions, eq(quizQuestions.id, quizMatches.questionId))
      .where(and(inSchool(quizMatches, t), isNull(quizMatches.deletedAt), liveQuestion, scopeWhere(ctx, scope, quizQuestions.quizId, quizQuestions.id)))
      .orderBy(asc(quizMatches.questionId), asc(quizMatches.position), asc(quizMatches.id)),
  ] as const;
}

type Queries = ReturnType<typeof questionQueries>;
export type QuestionRows = [Awaited<Queries[0]>, Awaited<Queries[1]>, Awaited<Queries[2]>];
type QuestionRow = QuestionRows[0][number];
type AnswerRow = QuestionRows[1][number]["answer"];
type MatchRow = QuestionRows[2][number]["match"];

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

/** Fisher–Yates with the platform's random source: the order of the right side tells nothing. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  const random = new Uint32Array(out.length);
  crypto.getRandomValues(random);
  for (let i = out.length - 1; i > 0; i--) {
    const j = random[i]! % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function presentStaff(ctx: SchoolCtx, q: QuestionRow, answers: AnswerRow[], matches: MatchRow[]): Promise<StaffQuestion> {
  const t = ctx.tenantId;
  return {
    id: q.id,
    quiz_id: q.quizId,
    type: q.type,
    prompt: q.prompt,
    image_url: await mediaUrl(ctx, t, q.imageAssetId),
    position: q.position,
    points: formatHundredths(q.pointsHundredths),
    scoring_mode: q.scoringMode,
    answers: await Promise.all(
      answers.map(async (a) => ({ id: a.id, text: a.text, image_url: await mediaUrl(ctx, t, a.imageAssetId), is_correct: a.isCorrect, position: a.position })),
    ),
    correct_text: q.type === "free_text" ? q.correctText : [],
    matches: q.type === "matching" ? matches.map((m) => ({ id: m.id, left_text: m.leftText, right_text: m.rightText, position: m.position })) : [],
    created_at: iso(q.createdAt),
    updated_at: iso(q.updatedAt),
  };
}

async function presentStudent(ctx: SchoolCtx, q: QuestionRow, answers: AnswerRow[], matches: MatchRow[]): Promise<StudentQuestion> {
  const t = ctx.tenantId;
  const base: StudentQuestion = {
    id: q.id,
    type: q.type,
    prompt: q.prompt,
    image_url: await mediaUrl(ctx, t, q.imageAssetId),
    position: q.position,
    points: formatHundredths(q.pointsHundredths),
  };
  if (q.type === "single" || q.type === "multiple") {
    base.answers = await Promise.all(answers.map(async (a) => ({ id: a.id, text: a.text, image_url: await mediaUrl(ctx, t, a.imageAssetId), position: a.position })));
  } else if (q.type === "matching") {
    base.match_lefts = matches.filter((m) => m.leftText !== null).map((m) => ({ id: m.id, text: m.leftText! }));
    base.match_rights = await Promise.all(shuffled(matches).map(async (m) => ({ id: await sealMatchToken(ctx.env, t, q.id, m.id), text: m.rightText })));
  }
  return base;
}

/** The rows of `questionQueries` as views, grouped by quiz (quizzes without questions are absent). */
export function presentQuestionRows(ctx: SchoolCtx, rows: QuestionRows, view: "staff"): Promise<Map<string, StaffQuestion[]>>;
export function presentQuestionRows(ctx: SchoolCtx, rows: QuestionRows, view: "student"): Promise<Map<string, StudentQuestion[]>>;
export function presentQuestionRows(ctx: SchoolCtx, rows: QuestionRows, view: QuestionViewKind): Promise<Map<string, QuestionView[]>>;
export async function presentQuestionRows(ctx: SchoolCtx, rows: QuestionRows, view: QuestionViewKind): Promise<Map<string, QuestionView[]>> {
  const [questionRows, answerRows, matchRows] = rows;
  const answers = groupBy(
    answerRows.map((r) => r.answer),
    (a) => a.questionId,
  );
  const matches = groupBy(
    matchRows.map((r) => r.match),
    (m) => m.questionId,
  );
  const present = view === "staff" ? presentStaff : presentStudent;
  const views = await Promise.all(questionRows.map((q) => present(ctx, q, answers.get(q.id) ?? [], matches.get(q.id) ?? [])));
  const out = new Map<string, QuestionView[]>();
  questionRows.forEach((q, i) => {
    const list = out.get(q.quizId);
    if (list) list.push(views[i]!);
    else out.set(q.quizId, [views[i]!]);
  });
  return out;
}

/**
 * The live questions of the quizzes in position order, as `view` shows them, in one batch (one
 * round trip) whatever the number of quizzes. Every requested quiz has an entry (empty when it
 * has no questions, or is not a quiz of the school).
 */
export function loadQuestions(ctx: SchoolCtx, quizIds: readonly string[], view: "staff"): Promise<Map<string, StaffQuestion[]>>;
export function loadQuestions(ctx: SchoolCtx, quizIds: readonly string[], view: "student"): Promise<Map<string, StudentQuestion[]>>;
export function loadQuestions(ctx: SchoolCtx, quizIds: readonly string[], view: QuestionViewKind): Promise<Map<string, QuestionView[]>>;
export async function loadQuestions(ctx: SchoolCtx, quizIds: readonly string[], view: QuestionViewKind): Promise<Map<string, QuestionView[]>> {
  const ids = [...new Set(quizIds)];
  const out = new Map<string, QuestionView[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = (await runBatch(ctx, questionQueries(ctx, { quizIds: ids }))) as QuestionRows;
  for (const [quizId, list] of await presentQuestionRows(ctx, rows, view)) out.set(quizId, list);
  return out;
}

/**
 * One question in the staff view (the answer of the question endpoints), from the rows of
 * `questionQueries(ctx, { questionId })`; null when the question is not there.
 */
export async function presentQuestion(ctx: SchoolCtx, rows: QuestionRows): Promise<StaffQuestion | null> {
  const byQuiz = await presentQuestionRows(ctx, rows, "staff");
  return [...byQuiz.values()][0]?.[0] ?? null;
}
