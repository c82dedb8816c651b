import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import type { AppEnv } from "./context";
import { ApiError, coreErrors, validationError, type ErrorDetail } from "./errors";
import type { RouteMeta } from "./route";
import { log } from "../lib/log";

/**
 * Failures are produced in exactly two places: `validationHook` (bad input) and `onError`
 * (everything thrown). Both render through `renderError`, so the body shape exists once.
 */
export function validationHook(
  result: { success: true } | { success: false; error: ZodError; target: string },
  c: Context<AppEnv>,
): void {
  if (result.success) return;
  const errors = c.get("route")?.errors;
  const code =
    result.target === "param"
      ? (errors?.param ?? "invalid_id_format")
      : result.target === "query"
        ? (errors?.query ?? "invalid_params")
        : (errors?.body ?? "invalid_request_body");
  const details: ErrorDetail[] = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || result.target,
    message: issue.message,
  }));
  const first = details[0];
  throw validationError(code, first ? `${first.path}: ${first.message}` : "The request is invalid.", details);
}

export function onError(err: Error, c: Context<AppEnv>): Response {
  if (err instanceof ApiError) return renderError(c, err);
  if (err instanceof HTTPException && (err.status === 400 || err.status === 415)) {
    // Malformed JSON or a body that is not JSON: the route's own body-validation identifier.
    const route: RouteMeta | undefined = c.get("route");
    const message = err.status === 415 ? "The body must be JSON (Content-Type: application/json)." : "The body is not valid JSON.";
    return renderError(c, validationError(route?.errors.body ?? coreErrors.INVALID_REQUEST_BODY.code, message));
  }
  if (err instanceof HTTPException && err.status < 500) {
    const entry = err.status === 404 ? coreErrors.ROUTE_NOT_FOUND : { ...coreErrors.BAD_REQUEST, status: err.status };
    return renderError(c, new ApiError(entry, { message: err.message }));
  }
  log.error("unhandled error", {
    request_id: c.get("requestId"),
    method: c.req.method,
    path: c.req.path,
    error: err.name,
    detail: err.message,
    stack: err.stack,
  });
  return renderError(c, new ApiError(coreErrors.INTERNAL_ERROR));
}

export function notFound(c: Context<AppEnv>): Response {
  return renderError(c, new ApiError(coreErrors.ROUTE_NOT_FOUND, { message: `No route ${c.req.method} ${c.req.path}.` }));
}

function renderError(c: Context<AppEnv>, err: ApiError): Response {
  return c.json(
    {
      success: false as const,
      error: err.code,
      message: err.message,
      request_id: c.get("requestId"),
      ...(err.extra.details ? { details: err.extra.details } : {}),
      ...(err.extra.data !== undefined ? { data: err.extra.data } : {}),
    },
    err.status,
    err.extra.headers,
  );
}
