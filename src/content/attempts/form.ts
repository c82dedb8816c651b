import type { StudentQuestion } from "../quizzes/question-present";

/**
 * Random forms (docs/decisions/quizzes.md, "Random forms"), pure: an attempt of a quiz that draws
 * forms stores a random seed and the question ids drawn with it. Everything else about the form
 * (the answers' order) is derived from the seed, so any read, on any isolate and after the
 * attempt's journal restarts, gives the same form.
 */

export interface FormSettings {
  questions_per_attempt: number | null;
  shuffle_questions: number | boolean;
  shuffle_answers: number | boolean;
}

/** What a start stores with the attempt; null when the quiz draws no form (all live questions in quiz order). */
export interface Form {
  seed: string;
  questionIds: string[];
  shuffleAnswers: boolean;
}

/** The form columns of an attempt row. */
export interface FormColumns {
  form_seed: string | null;
  form_question_ids: string | null;
  form_shuffle_answers: number;
}

export function drawsForm(quiz: FormSettings): boolean {
  return quiz.questions_per_attempt !== null || Boolean(quiz.shuffle_questions) || Boolean(quiz.shuffle_answers);
}

export function newFormSeed(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** A 32-bit hash of the text (FNV-1a), the PRNG's starting state. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, fast and good enough to deal questions; not a secret (the seed never leaves the server). */
function prng(seed: string): () => number {
  let state = hash(seed);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates with the seeded generator: the same seed gives the same order. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The draw: `questions_per_attempt` of the live questions (all when unset or when fewer are
 * live), uniformly at random, in random order with `shuffle_questions`, else in quiz order.
 */
export function drawForm(quiz: FormSettings, liveIds: readonly string[], seed: string): Form {
  const random = prng(`questions:${seed}`);
  const count = quiz.questions_per_attempt === null ? liveIds.length : Math.min(quiz.questions_per_attempt, liveIds.length);
  const picked = shuffled(liveIds, random).slice(0, count);
  const chosen = new Set(picked);
  const questionIds = quiz.shuffle_questions ? picked : liveIds.filter((id) => chosen.has(id));
  return { seed, questionIds, shuffleAnswers: Boolean(quiz.shuffle_answers) };
}

/** The form stored with an attempt row, null for an attempt without one. */
export function formOfRow(row: FormColumns): Form | null {
  if (row.form_seed === null || row.form_question_ids === null) return null;
  return { seed: row.form_seed, questionIds: JSON.parse(row.form_question_ids) as string[], shuffleAnswers: row.form_shuffle_answers === 1 };
}

/**
 * The attempt's questions: without a form the live questions as given (quiz order); with one the
 * drawn questions still live, in drawn order (a question deleted since drops out, as it does
 * from an attempt without a form).
 */
export function formQuestions<T extends { id: string }>(row: FormColumns, questions: readonly T[]): T[] {
  const form = formOfRow(row);
  if (form === null) return [...questions];
  const byId = new Map(questions.map((question) => [question.id, question]));
  return form.questionIds.flatMap((id) => {
    const question = byId.get(id);
    return question ? [question] : [];
  });
}

/** The live questions of the quiz the form left out (a save naming one is `question_not_in_form`). */
export function undrawnIds(row: FormColumns, liveIds: readonly string[]): string[] {
  const form = formOfRow(row);
  if (form === null) return [];
  const drawn = new Set(form.questionIds);
  return liveIds.filter((id) => !drawn.has(id));
}

/** A question's answers in the form's order: shuffled by the seed and the question id when the form shuffles answers. */
export function formAnswerOrder<T>(form: Form | null, questionId: string, answers: readonly T[]): T[] {
  if (form === null || !form.shuffleAnswers) return [...answers];
  return shuffled(answers, prng(`answers:${form.seed}:${questionId}`));
}

/** The columns a start (or a section's `go`) writes for its form. */
export function formColumns(form: Form | null): { formSeed: string | null; formQuestionIds: string[] | null; formShuffleAnswers: boolean } {
  return { formSeed: form?.seed ?? null, formQuestionIds: form?.questionIds ?? null, formShuffleAnswers: form?.shuffleAnswers ?? false };
}

/**
 * The student view of a form: the drawn questions still live, in drawn order, each choice
 * question's answers in the form's order. Positions are renumbered to the order shown, so a
 * client sorting by position keeps the form's order.
 */
export function formView(form: Form, questions: readonly StudentQuestion[]): StudentQuestion[] {
  const row = { form_seed: form.seed, form_question_ids: JSON.stringify(form.questionIds), form_shuffle_answers: form.shuffleAnswers ? 1 : 0 };
  return formQuestions(row, questions).map((question, position) => ({
    ...question,
    position,
    ...(question.answers ? { answers: formAnswerOrder(form, question.id, question.answers).map((answer, index) => ({ ...answer, position: index })) } : {}),
  }));
}
