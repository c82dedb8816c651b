import { isUuid } from "../../core/lib/ids";
import type { QuestionType } from "../../db/schema";

/**
 * Answer payloads (the contract's variants per question type) read into one shape per type.
 * Saving checks a payload with `readPayload`; scoring reads the stored payload the same way, so a
 * payload that was accepted is always understood at scoring.
 *
 * When a payload carries several keys of its type, the first one in the contract's order counts:
 * single `answer_ids` (first element), `selected_answer_id`, `selected_option_id`; multiple
 * `answer_ids`, `selected_answer_ids`, `selected_option_ids`. Only that key is kept (a matching
 * pair keeps `left_id` and `right_id`): every other key is dropped, so what is stored, read back
 * and written to D1 is never deeper than three levels, whatever the client sent.
 *
 * Every read here looks only at the keys of the type, one level at a time, so a stored payload of
 * any shape or depth reads as "not an answer" instead of throwing.
 */

export type Response =
  | { type: "single"; answerId: string | null }
  | { type: "multiple"; answerIds: string[] }
  | { type: "free_text"; text: string }
  /** `rightId` as the payload has it: a token of the student view while saving, a match row id at scoring. */
  | { type: "matching"; pairs: { leftId: string; rightId: string }[] };

/** `payload`: the keys kept, values as sent. */
export type ReadResult = { ok: true; response: Response; payload: Record<string, unknown> } | { ok: false; message: string };

/** Free-text answers up to this many characters. */
export const FREE_TEXT_MAX = 10_000;
/** Ids in one choice answer and pairs in one matching answer. */
export const CHOICES_MAX = 200;
/** A payload as sent (JSON text) up to this many characters. */
export const PAYLOAD_MAX_CHARS = 20_000;
/** Objects and arrays nested at most this deep in a payload as sent (the payload itself is level 1; answers need 3). */
export const PAYLOAD_MAX_DEPTH = 8;

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
    return typeof ids === "string" ? fail(ids) : { ok: true, response: { type: "single", answerId: ids[0] ?? null }, payload: { [key]: payload[key] } };
  }
  const value = payload[key];
  if (!isUuid(value)) return fail(`${key} must be an answer id (UUID)`);
  return { ok: true, response: { type: "single", answerId: value.toLowerCase() }, payload: { [key]: value } };
}

function readMultiple(payload: Record<string, unknown>): ReadResult {
  const key = firstKey(payload, MULTIPLE_KEYS);
  if (key === undefined) return fail(`a multiple-choice answer needs one of ${MULTIPLE_KEYS.join(", ")}`);
  const ids = idList(payload[key], key);
  if (typeof ids === "string") return fail(ids);
  return { ok: true, response: { type: "multiple", answerIds: [...new Set(ids)] }, payload: { [key]: payload[key] } };
}

function readFreeText(payload: Record<string, unknown>): ReadResult {
  if (!Object.hasOwn(payload, "text")) return fail("a free-text answer needs text");
  const text = payload.text;
  if (typeof text !== "string") return fail("text must be a string");
  if (text.length > FREE_TEXT_MAX) return fail(`text takes at most ${FREE_TEXT_MAX} characters`);
  return { ok: true, response: { type: "free_text", text }, payload: { text } };
}

function readMatching(payload: Record<string, unknown>): ReadResult {
  if (!Object.hasOwn(payload, "pairs")) return fail("a matching answer needs pairs");
  const pairs = payload.pairs;
  if (!Array.isArray(pairs)) return fail("pairs must be an array of {left_id, right_id}");
  if (pairs.length > CHOICES_MAX) return fail(`pairs takes at most ${CHOICES_MAX} items`);
  const out: { leftId: string; rightId: string }[] = [];
  const kept: { left_id: string; right_id: string }[] = [];
  for (const pair of pairs as unknown[]) {
    if (typeof pair !== "object" || pair === null || Array.isArray(pair)) return fail("each pair must be an object {left_id, right_id}");
    const { left_id: leftId, right_id: rightId } = pair as Record<string, unknown>;
    if (!isUuid(leftId)) return fail("left_id must be an id of match_lefts (UUID)");
    if (typeof rightId !== "string" || rightId.length === 0 || rightId.length > 100) return fail("right_id must be an id of match_rights");
    out.push({ leftId: leftId.toLowerCase(), rightId });
    kept.push({ left_id: leftId, right_id: rightId });
  }
  return { ok: true, response: { type: "matching", pairs: out }, payload: { pairs: kept } };
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

/**
 * Why a payload as sent is refused whatever its question (too deep or too large), else null.
 * Iterative and stopping at the first excess, so no input can exhaust the stack or walk long: past
 * the depth limit SQLite's JSON functions (1,000 levels) and the journal's RPC (a few thousand)
 * would fail on the payload later, on every read and finalize of the attempt.
 */
export function payloadBoundsProblem(payload: unknown): string | null {
  const stack: [value: unknown, depth: number][] = [[payload, 1]];
  // A lower bound on the JSON text's length: the walk stops as soon as it is over the limit.
  let chars = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value === "string") chars += value.length + 2;
    else if (typeof value !== "object" || value === null) chars += 1;
    else {
      if (depth > PAYLOAD_MAX_DEPTH) return `a payload nests at most ${PAYLOAD_MAX_DEPTH} levels deep`;
      const children = Array.isArray(value) ? (value as unknown[]) : Object.values(value);
      if (!Array.isArray(value)) for (const key of Object.keys(value)) chars += key.length + 3;
      chars += children.length + 1;
      if (chars > PAYLOAD_MAX_CHARS) break;
      for (const child of children) stack.push([child, depth + 1]);
    }
    if (chars > PAYLOAD_MAX_CHARS) break;
  }
  if (chars > PAYLOAD_MAX_CHARS || JSON.stringify(payload).length > PAYLOAD_MAX_CHARS) return `a payload takes at most ${PAYLOAD_MAX_CHARS} characters of JSON`;
  return null;
}

/** A payload column as stored in D1, for a read: anything that is not a JSON object within the limits reads as `{}`. */
export function storedPayload(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || payloadBoundsProblem(value) !== null) return {};
  return value as Record<string, unknown>;
}
