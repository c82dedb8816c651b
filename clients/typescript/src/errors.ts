import type { paths } from "./schema";

/** The failure envelope every endpoint answers with (docs/api.md, "Conventions for API clients"). */
export interface ErrorEnvelope {
  success: false;
  error: string;
  message: string;
  request_id: string;
  details?: { path: string; message: string }[];
  data?: unknown;
}

type Method = "get" | "put" | "post" | "delete" | "patch";
type Success = 200 | 201 | 202 | 204;

/**
 * The identifiers one operation can answer, from the document's per-response enums:
 * `ErrorIdentifier<"/api/v1/auth/refresh", "post">` is `"invalid_request_body" | … | "stale_refresh_token"`.
 */
export type ErrorIdentifier<P extends keyof paths, M extends Method & keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? { [S in keyof R]: S extends Success ? never : R[S] extends { content: { "application/json": { error?: infer E } } } ? NonNullable<E> : never }[keyof R]
  : never;

/**
 * A failure answer as an exception. `error` is the operation's identifier union when it comes from
 * `unwrap` (the body type openapi-fetch derived from the document); a body that is not the
 * envelope (a proxy's HTML page) is reported as `unexpected_response`.
 */
export class ApiError<Id extends string = string> extends Error {
  readonly error: Id;
  readonly status: number;
  readonly requestId: string | null;
  readonly details: { path: string; message: string }[];
  readonly data: unknown;

  constructor(status: number, body: unknown) {
    const envelope = isEnvelope(body) ? body : null;
    super(envelope ? `${status} ${envelope.error}: ${envelope.message}` : `${status}: the answer is not the API's failure envelope`);
    this.name = "ApiError";
    this.status = status;
    this.error = (envelope?.error ?? "unexpected_response") as Id;
    this.requestId = envelope?.request_id ?? null;
    this.details = envelope?.details ?? [];
    this.data = envelope?.data;
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  return typeof body === "object" && body !== null && (body as { success?: unknown }).success === false && typeof (body as { error?: unknown }).error === "string";
}

/** The success payload (the envelope's `data`; undefined for 204). */
export type Payload<D> = D extends { data: infer P } ? P : undefined;

/**
 * The payload of an openapi-fetch result, or its failure thrown as `ApiError` typed with the
 * operation's identifiers (catch it and narrow with `instanceof ApiError`).
 */
export function unwrap<D, E>(result: { data?: D; error?: E; response: Response }): Payload<D> {
  if (!result.response.ok) throw new ApiError<E extends { error?: infer Id } ? Extract<NonNullable<Id>, string> : string>(result.response.status, result.error);
  return (result.data as { data?: unknown } | undefined)?.data as Payload<D>;
}

/** The result's failure as a typed `ApiError`, or null on success: for code that branches instead of catching. */
export function failureOf<D, E>(result: { data?: D; error?: E; response: Response }): ApiError<E extends { error?: infer Id } ? Extract<NonNullable<Id>, string> : string> | null {
  return result.response.ok ? null : new ApiError(result.response.status, result.error);
}
