import { z } from "@hono/zod-openapi";
import { UUID_PATTERN } from "../lib/ids";

/**
 * A UUID in a path, query or body; each route declares the identifier a malformed one gets. Ids
 * are stored lower-case, so an upper-case spelling of the same UUID names the same record.
 */
export const uuidField = z
  .string()
  .regex(UUID_PATTERN, "must be a UUID")
  .transform((value) => value.toLowerCase())
  .openapi({ type: "string", format: "uuid" });

/** An email address, trimmed and lower-cased (emails are unique per school in lower case). */
export const emailField = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email())
  .transform((value) => value.toLowerCase())
  .openapi({ example: "user@demo.school" });

const jsonContent = <T>(schema: T) => ({ content: { "application/json": { schema } } });

/** A required JSON request body for `defineRoute({ request })`. */
export const jsonBody = <T>(schema: T) => ({ body: { ...jsonContent(schema), required: true } });

/** An optional JSON body: a request without a JSON content type validates as `{}`. */
export const optionalJsonBody = <T>(schema: T) => ({ body: { ...jsonContent(schema), required: false } });

function hasScheme(value: string, schemes: readonly string[]): boolean {
  try {
    return schemes.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * An image reference: a URL (https; http too where `allowHttp`, school logos) kept as sent, or the
 * UUID of a media asset of the school, lower-cased like every stored id. Reads turn an asset into
 * a signed link (`mediaUrl`, src/platform/media/links.ts).
 */
export function mediaReference(options: { allowHttp?: boolean } = {}) {
  const schemes = options.allowHttp ? ["https:", "http:"] : ["https:"];
  const url = options.allowHttp ? "an http(s) URL" : "an https URL";
  return z
    .string()
    .trim()
    .max(2048)
    .refine((value) => UUID_PATTERN.test(value) || hasScheme(value, schemes), `must be ${url} or a media-asset UUID`)
    .transform((value) => (UUID_PATTERN.test(value) ? value.toLowerCase() : value));
}

/** The answer of a delete: `{ deleted: true }`. */
export const DeletedResult = z.object({ deleted: z.literal(true) });
