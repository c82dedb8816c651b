import type { ContentfulStatusCode } from "hono/utils/http-status";

// The error type lives below src/core/http so that src/core/db (liveRow) can throw it without importing
// the HTTP layer; ../http/errors re-exports it for everything else.

export interface ErrorDetail {
  path: string;
  message: string;
}

/** One failure an endpoint can answer: the spec's identifier verbatim, its status and a readable text. */
export interface ErrorEntry {
  readonly status: ContentfulStatusCode;
  /** The spec's identifier, verbatim (some contain spaces, such as `invalid credentials`). */
  readonly code: string;
  readonly message: string;
}

type EntrySpec = readonly [status: ContentfulStatusCode, code: string, message: string];

/**
 * An area's error catalogue: `KEY: [status, identifier, message]`. Services throw these entries and
 * routes document them (`defineRoute({ failures })`), so behaviour and documentation share one source.
 * Keys are SCREAMING_SNAKE_CASE named after the situation, whatever the identifier's spelling.
 */
export function errorCatalogue<const T extends Record<string, EntrySpec>>(
  entries: T,
): { readonly [K in keyof T]: ErrorEntry & { readonly status: T[K][0]; readonly code: T[K][1] } } {
  const out: Record<string, ErrorEntry> = {};
  for (const [key, [status, code, message]] of Object.entries(entries)) out[key] = Object.freeze({ status, code, message });
  return out as never;
}

/** The one error type of the API; `data` carries what the spec says accompanies an error. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly extra: { data?: unknown; details?: ErrorDetail[]; headers?: Record<string, string> };

  /** `headers`: what the failure answer carries besides its body (`Retry-After` of a 429). */
  constructor(entry: ErrorEntry, extra: { message?: string; data?: unknown; details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    super(extra.message ?? entry.message);
    this.name = "ApiError";
    this.status = entry.status;
    this.code = entry.code;
    this.extra = { data: extra.data, details: extra.details, headers: extra.headers };
  }
}
