import type { Locale } from "../../core/env";
import { TIMESTAMP_VARIABLES } from "./catalog";

/** Push text limits, in UTF-8 bytes (a template is held to them, and so is what it renders to). */
export const TITLE_MAX_BYTES = 160;
export const BODY_MAX_BYTES = 2000;

/** `{{name}}`, the one placeholder form; stored templates are normalized to it. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

const NULL_TEXT = "—";
const NO_LIMIT: Record<Locale, string> = { ru: "без ограничений", en: "no limit" };
const ROLES: Record<Locale, Record<string, string>> = {
  ru: { admin: "администратор", curator: "куратор", student: "студент", superadmin: "суперадминистратор" },
  en: { admin: "administrator", curator: "curator", student: "student", superadmin: "superadministrator" },
};
/** Variables whose null means "no limit" rather than "nothing". */
const LIMIT_VARIABLES = new Set(["device_limit", "attempts_left"]);

interface RenderOptions {
  locale: Locale;
  /** The school's IANA time zone: timestamps are local wall-clock times there. */
  timeZone: string;
  /** The event's variables; any other name renders as empty (templates are checked on write too). */
  declared: readonly string[];
  /** Variables whose value is already text to insert as it is (placeholders filled in later). */
  verbatim?: ReadonlySet<string>;
}

/**
 * The one renderer of push text: fills `{{name}}` from raw values (ISO timestamps, numbers,
 * strings), formats timestamps in the school's zone (`DD.MM.YYYY HH:MM` in ru, `YYYY-MM-DD HH:MM`
 * in en), renders null as `—` and enum values in the locale's words.
 */
export function renderTemplate(template: string, variables: Readonly<Record<string, unknown>>, options: RenderOptions): string {
  const declared = new Set(options.declared);
  return template.replace(PLACEHOLDER, (_match, name: string) => (declared.has(name) ? formatValue(name, variables[name], options) : ""));
}

export function renderPush(
  template: { title: string; body: string },
  variables: Readonly<Record<string, unknown>>,
  options: RenderOptions,
): { title: string; body: string } {
  return {
    title: cutToBytes(renderTemplate(template.title, variables, options).trim(), TITLE_MAX_BYTES),
    body: cutToBytes(renderTemplate(template.body, variables, options).trim(), BODY_MAX_BYTES),
  };
}

function formatValue(name: string, value: unknown, options: RenderOptions): string {
  if (options.verbatim?.has(name)) return String(value);
  if (value === null || value === undefined) return LIMIT_VARIABLES.has(name) ? NO_LIMIT[options.locale] : NULL_TEXT;
  if (name === "role" && typeof value === "string") return ROLES[options.locale][value] ?? value;
  if (TIMESTAMP_VARIABLES.has(name)) {
    const ms = typeof value === "number" ? value : Date.parse(String(value));
    return Number.isFinite(ms) ? formatTimestamp(ms, options.locale, options.timeZone) : NULL_TEXT;
  }
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

export function formatTimestamp(ms: number, locale: Locale, timeZone: string): string {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(ms).map((part) => [part.type, part.value]));
  const time = `${parts.hour}:${parts.minute}`;
  return locale === "ru" ? `${parts.day}.${parts.month}.${parts.year} ${time}` : `${parts.year}-${parts.month}-${parts.day} ${time}`;
}

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/** The longest prefix of whole characters within `max` UTF-8 bytes. */
export function cutToBytes(text: string, max: number): string {
  if (utf8Bytes(text) <= max) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Bytes(char);
    if (bytes + size > max) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end).trimEnd();
}
