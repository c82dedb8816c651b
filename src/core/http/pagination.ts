import { z } from "@hono/zod-openapi";
import { uuidField } from "./fields";

/** `page` (from 1) and `limit` query parameters with an endpoint's own bounds. */
export function pageQuery(options: { maxLimit: number; defaultLimit: number }) {
  return {
    page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
    limit: z.coerce.number().int().min(1).max(options.maxLimit).default(options.defaultLimit),
  };
}

/** `limit` / `offset` query parameters. */
export function offsetQuery(options: { maxLimit: number; defaultLimit: number }) {
  return {
    limit: z.coerce.number().int().min(1).max(options.maxLimit).default(options.defaultLimit),
    offset: z.coerce.number().int().min(0).default(0),
  };
}

export function pageOffset(page: number, limit: number): number {
  return (page - 1) * limit;
}

/** A uuid path parameter; the endpoint's route declares which identifier a bad one gets. */
export const uuidParam = uuidField;

/** The `{id}` of a path, a uuid. */
export const IdParams = z.object({ id: uuidParam });

/**
 * A query parameter taking one or several values, comma-separated (`?role=a,b`) or repeated
 * (`?role=a&role=b`); parsed to a de-duplicated list of the allowed values.
 */
export function multiValueQuery<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((raw) => [...new Set((Array.isArray(raw) ? raw : [raw]).flatMap((part) => part.split(",")).map((part) => part.trim()).filter(Boolean))])
    .pipe(z.array(z.enum(values)).min(1))
    .openapi({ type: "string", description: `One or more of ${values.join(", ")}; comma-separated or repeated`, example: values[0] });
}
