import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "./context";

/** `{ success: true, data }`, the one success shape (spec, convention 1). */
export function ok<T, S extends ContentfulStatusCode = 200>(c: Context<AppEnv>, data: T, status?: S) {
  return c.json({ success: true as const, data }, (status ?? 200) as S);
}

/** OpenAPI response entry for a success envelope around `data`. */
export function okResponse<T extends z.ZodType>(data: T, description = "Success") {
  return {
    description,
    content: { "application/json": { schema: z.object({ success: z.literal(true), data }) } },
  } as const;
}

/** The component name of the failure envelope; src/app.ts registers it, responses refer to it. */
export const ERROR_SCHEMA = "Error";

export const ErrorBody = z
  .object({
    success: z.literal(false),
    error: z.string().openapi({ description: "The spec's error identifier, verbatim" }),
    message: z.string(),
    request_id: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    data: z.unknown().optional(),
  })
  .openapi(ERROR_SCHEMA);

/**
 * One failure response's schema: the shared envelope with `error` narrowed to the enum of that
 * response's identifiers (docs/decisions/api-client.md, "Error identifiers as enums in the document").
 * Plain OpenAPI rather than a zod `extend`: there are about 180 distinct lists, and building them as
 * zod schemas at import would add tens of milliseconds to every cold start.
 */
export function errorSchemaWithIdentifiers(codes: readonly string[]) {
  return {
    allOf: [{ $ref: `#/components/schemas/${ERROR_SCHEMA}` }, { type: "object" as const, properties: { error: { type: "string" as const, enum: [...codes] } }, required: ["error"] }],
  };
}

/** OpenAPI response entries for the listed failures: `{ 400: "invalid_params", 404: ["user_not_found"] }`. */
export function errorResponses(errors: Partial<Record<400 | 401 | 403 | 404 | 409 | 415 | 422 | 423 | 503, string | readonly string[]>>) {
  const out: Record<string, { description: string; content: { "application/json": { schema: typeof ErrorBody } } }> = {};
  for (const [status, codes] of Object.entries(errors)) {
    const list: readonly string[] = typeof codes === "string" ? [codes] : (codes ?? []);
    out[status] = { description: list.map((code) => `\`${code}\``).join(", "), content: { "application/json": { schema: ErrorBody } } };
  }
  return out;
}
