import type { z } from "@hono/zod-openapi";
import { ApiError, coreErrors } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import type { QuestionType, ScoringMode } from "../../db/schema";
import { quizzesErrors } from "./errors";
import type { CreateQuestionBody, UpdateQuestionBody } from "./question-schemas";

/**
 * The rules of a question's content, checked before anything is written: which parts each type
 * takes, that a question and each answer show something (text or picture), at most one correct
 * answer of a single choice, and the REPLACE lists turned into the rows to keep, add and drop.
 * Pure: the service checks the image assets and writes the plan.
 */

export type CreateQuestionInput = z.infer<typeof CreateQuestionBody>;
export type UpdateQuestionInput = z.infer<typeof UpdateQuestionBody>;

function invalidBody(path: string, message: string): ApiError {
  return new ApiError(coreErrors.INVALID_REQUEST_BODY, { message: `${path}: ${message}`, details: [{ path, message }] });
}

/** `partial` scores part of the points, which only multiple-answer and matching questions have. */
function checkScoringMode(type: QuestionType, mode: string | undefined): void {
  if (mode === "partial" && type !== "multiple" && type !== "matching") {
    throw invalidBody("scoring_mode", `partial applies to multiple and matching questions only, not ${type}`);
  }
}

/** POST /quizzes/:id/questions: the body's own rules (the image asset is the service's check). */
export function checkNewQuestion(body: CreateQuestionInput): void {
  checkScoringMode(body.type, body.scoring_mode);
  if (!body.prompt && !body.image_asset_id) throw new ApiError(quizzesErrors.QUESTION_CONTENT_REQUIRED);
}

/** The question as stored, as far as an update needs it. */
export interface StoredQuestion {
  type: QuestionType;
  prompt: string;
  imageAssetId: string | null;
}

export interface KeptAnswer {
  id: string;
  text: string;
  /** keep: the stored picture stays; set: `image` replaces it; remove: no picture. */
  imageMode: "keep" | "set" | "remove";
  image: string | null;
  is_correct: boolean;
  position: number;
}

export interface NewAnswer {
  id: string;
  text: string;
  image: string | null;
  is_correct: boolean;
  position: number;
}

export interface NewMatch {
  id: string;
  left_text: string | null;
  right_text: string;
  position: number;
}

export interface QuestionUpdatePlan {
  /** Columns of the question to change (only the ones the body names). */
  set: { prompt?: string; imageAssetId?: string | null; pointsHundredths?: number; scoringMode?: ScoringMode | null; correctText?: string[] };
  /** The answers after the update, when the body replaces them. */
  answers: { kept: KeptAnswer[]; added: NewAnswer[] } | null;
  /** The pairs and distractors after the update, when the body replaces them. */
  matches: NewMatch[] | null;
  /** Asset ids the body names, to check as confirmed images of the school. */
  images: { question: string | null; answers: string[] };
}

function checkPartsForType(type: QuestionType, body: UpdateQuestionInput): void {
  if (body.answers !== undefined && type === "free_text") throw new ApiError(quizzesErrors.ANSWERS_NOT_ALLOWED_FOR_FREE_TEXT);
  if (body.answers !== undefined && type === "matching") throw new ApiError(quizzesErrors.ANSWERS_NOT_ALLOWED_FOR_MATCHING);
  // The catalogue's message says it: correct_text belongs to free text, so a matching question is refused alike.
  if (body.correct_text !== undefined && type !== "free_text") throw new ApiError(quizzesErrors.CORRECT_TEXT_NOT_ALLOWED_FOR_CHOICE);
  if (body.matches !== undefined && type !== "matching") throw new ApiError(quizzesErrors.MATCHES_NOT_ALLOWED_FOR_NON_MATCHING_QUESTION);
}

/**
 * The answers of a REPLACE list: an item naming a live answer of the question keeps its id (and
 * its picture unless it sets or removes one); an item without id is new. `stored` maps the live
 * answers' ids to their pictures.
 */
function planAnswers(type: QuestionType, items: NonNullable<UpdateQuestionInput["answers"]>, stored: ReadonlyMap<string, string | null>) {
  const kept: KeptAnswer[] = [];
  const added: NewAnswer[] = [];
  const seen = new Set<string>();
  items.forEach((item, position) => {
    const path = `answers[${position}]`;
    if (item.image_asset_id !== undefined && item.remove_image === true) throw invalidBody(`${path}.remove_image`, "cannot be sent with image_asset_id");
    if (item.id !== undefined) {
      if (seen.has(item.id)) throw invalidBody(`${path}.id`, "names an answer listed earlier");
      seen.add(item.id);
      if (!stored.has(item.id)) throw invalidBody(`${path}.id`, "is not an answer of this question");
    }
    const text = item.text ?? "";
    const keptPicture = item.id !== undefined && item.image_asset_id === undefined && item.remove_image !== true ? (stored.get(item.id) ?? null) : null;
    const picture = item.image_asset_id ?? keptPicture;
    if (text === "" && picture === null) {
      throw new ApiError(quizzesErrors.ANSWER_CONTENT_REQUIRED, { message: `${path}: needs a text, an image, or both.`, details: [{ path, message: "needs a text, an image, or both" }] });
    }
    const isCorrect = item.is_correct ?? false;
    if (item.id !== undefined) {
      const imageMode = item.image_asset_id !== undefined ? "set" : item.remove_image === true ? "remove" : "keep";
      kept.push({ id: item.id, text, imageMode, image: item.image_asset_id ?? null, is_correct: isCorrect, position });
    } else {
      added.push({ id: uuidv7(), text, image: item.image_asset_id ?? null, is_correct: isCorrect, position });
    }
  });
  if (type === "single" && items.filter((item) => item.is_correct === true).length > 1) throw new ApiError(quizzesErrors.SINGLE_CHOICE_MULTIPLE_CORRECT);
  return { kept, added };
}

function planMatches(items: NonNullable<UpdateQuestionInput["matches"]>): NewMatch[] {
  const rights = new Set<string>();
  const rows = items.map((item, position) => {
    if (rights.has(item.right_text)) throw invalidBody(`matches[${position}].right_text`, "repeats an earlier right_text; each must be unique");
    rights.add(item.right_text);
    return { id: uuidv7(), left_text: item.left_text ? item.left_text : null, right_text: item.right_text, position };
  });
  // Only distractors would leave nothing to match (and a partial score over zero pairs).
  if (!rows.some((row) => row.left_text !== null)) throw invalidBody("matches", "needs at least one item with left_text");
  return rows;
}

/**
 * PATCH /quiz-questions/:id: the body against the stored question and its live answers
 * (id → picture). Type rules first, then the lists, then that the question still shows something.
 */
export function planQuestionUpdate(question: StoredQuestion, storedAnswers: ReadonlyMap<string, string | null>, body: UpdateQuestionInput): QuestionUpdatePlan {
  checkPartsForType(question.type, body);
  if (body.scoring_mode !== undefined) checkScoringMode(question.type, body.scoring_mode);
  if (body.image_asset_id !== undefined && body.remove_image === true) throw invalidBody("remove_image", "cannot be sent with image_asset_id");

  const answers = body.answers !== undefined ? planAnswers(question.type, body.answers, storedAnswers) : null;
  const matches = body.matches !== undefined ? planMatches(body.matches) : null;

  const set: QuestionUpdatePlan["set"] = {};
  if (body.prompt !== undefined) set.prompt = body.prompt;
  if (body.image_asset_id !== undefined) set.imageAssetId = body.image_asset_id;
  else if (body.remove_image === true) set.imageAssetId = null;
  if (body.points !== undefined) set.pointsHundredths = body.points;
  if (body.scoring_mode !== undefined) set.scoringMode = body.scoring_mode === "" ? null : body.scoring_mode;
  if (body.correct_text !== undefined) set.correctText = body.correct_text;

  const prompt = set.prompt ?? question.prompt;
  const image = set.imageAssetId !== undefined ? set.imageAssetId : question.imageAssetId;
  if (prompt === "" && image === null) throw new ApiError(quizzesErrors.QUESTION_CONTENT_REQUIRED);

  const answerImages = [...(answers?.kept ?? []), ...(answers?.added ?? [])].flatMap((answer) => (answer.image !== null ? [answer.image] : []));
  return { set, answers, matches, images: { question: body.image_asset_id ?? null, answers: answerImages } };
}
