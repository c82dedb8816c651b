import { isUuid } from "../../core/lib/ids";
import type { QuestionType } from "../../db/schema";

/**
 * Answer payloads (the contract's variants per question type) read into one shape per type.
 * Saving checks a payload with `readPayload`; scoring reads the stored payload the same way, so a
 * payload that was accepted is always understood at scoring.
 *
 * When a payload carries several keys of its type, the first one in the contract's order counts:
 * single `answer_ids` (first element), `selected_answer_id`, `selected_option_id`; multiple
 * `answer_ids`, `selected_answer_ids`, `selected_option_ids`. Other keys are kept as sent and
 * ignored.
 */

export type Response =
  | { type: "single"; answerId: string | null }
  | { type: "multiple"; answerIds: string[] }
  | { type: "free_text"; text: string }
  /** `rightId` as the payload has it: a token of the student view while saving, a match row id at scoring. */
  | { type: "matching"; pairs: { leftId: string; rightId: string }[] };

export type ReadResult = { ok: true; response: Response } | { ok: false; message: string };

/** Free-text answers up to this many characters. */
export const FREE_TEXT_MAX = 10_000;
/** Ids in one choice answer and pairs in one matching answer. */
export const CHOICES_MAX = 200;
/** A payload as stored (JSON text) up to this many characters. */
export const PAYLOAD_MAX_CHARS = 20_000;

const SINGLE_KEYS = ["answer_ids", "selected_answer_id", "selected_option_id"] as const;
const MULTIPLE_KEYS = ["answer_ids", "selected_answer_ids", "selected_option_ids"] as const;

function fail(message: string): ReadResult {
  return { ok: false, message };
}

function idList(value: unknown, key: string): string[] | string {
  if (!Array.isArray(value)) return `${key} must be an array of answer ids`;
  if (value.length > CHOICES_MAX) return `${key} takes at most ${CHOICES_MAX} ids`;
  if (!value.every(isUuid)) return `${key} must hold answer ids (UUIDs)`;
  return value.map((id) => id.toLowerCase());
}

function firstKey<K extends string>(payload: Record<string, unknown>, keys: readonly K[]): K | undefined {
  return keys.find((key) => Object.hasOwn(payload, key));
}

function readSingle(payload: Record<string, unknown>): ReadResult {
  const key = firstKey(payload, SINGLE_KEYS);
  if (key === undefined) return fail(`a single-choice answer needs one of ${SINGLE_KEYS.join(", ")}`);
  if (key === "answer_ids") {
    const ids = idList(payload[key], key);
    return typeof ids === "string" ? fail(ids) : { ok: true, response: { type: "single", answerId: ids[0] ?? null } };
  }
  const value = payload[key];
  if (!isUuid(value)) return fail(`${key} must be an answer id (UUID)`);
  return { ok: true, response: { type: "single", answerId: value.toLowerCase() } };
}

function readMultiple(payload: Record<string, unknown>): ReadResult {
  const key = firstKey(payload, MULTIPLE_KEYS);
  if (key === undefined) return fail(`a multiple-choice answer needs one of ${MULTIPLE_KEYS.join(", ")}`);
  const ids = idList(payload[key], key);
  return typeof ids === "string" ? fail(ids) : { ok: true, response: { type: "multiple", answerIds: [...new Set(ids)] } };
}

function readFreeText(payload: Record<string, unknown>): ReadResult {
  if (!Object.hasOwn(payload, "text")) return fail("a free-text answer needs text");
  const text = payload.text;
  if (typeof text !== "string") return fail("text must be a string");
  if (text.length > FREE_TEXT_MAX) return fail(`text takes at most ${FREE_TEXT_MAX} characters`);
  return { ok: true, response: { type: "free_text", text } };
}

function readMatching(payload: Record<string, unknown>): ReadResult {
  if (!Object.hasOwn(payload, "pairs")) return fail("a matching answer needs pairs");
  const pairs = payload.pairs;
  if (!Array.isArray(pairs)) return fail("pairs must be an array of {left_id, right_id}");
  if (pairs.length > CHOICES_MAX) return fail(`pairs takes at most ${CHOICES_MAX} items`);
  const out: { leftId: string; rightId: string }[] = [];
  for (const pair of pairs) {
    if (typeof pair !== "object" || pair === null || Array.isArray(pair)) return fail("each pair must be an object {left_id, right_id}");
    const { left_id: leftId, right_id: rightId } = pair as Record<string, unknown>;
    if (!isUuid(leftId)) return fail("left_id must be an id of match_lefts (UUID)");
    if (typeof rightId !== "string" || rightId.length === 0 || rightId.length > 100) return fail("right_id must be an id of match_rights");
    out.push({ leftId: leftId.toLowerCase(), rightId });
  }
  return { ok: true, response: { type: "matching", pairs: out } };
}

/** The payload read for a question of `type`, or why it is not an answer of that type. */
export function readPayload(type: QuestionType, payload: unknown): ReadResult {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return fail("payload must be an object");
  const record = payload as Record<string, unknown>;
  switch (type) {
    case "single":
      return readSingle(record);
    case "multiple":
      return readMultiple(record);
    case "free_text":
      return readFreeText(record);
    case "matching":
      return readMatching(record);
  }
}
