import { z } from "@hono/zod-openapi";
import { UUID_PATTERN } from "../lib/ids";
import { parsePublicHttpsUrl, PUBLIC_URL_MAX } from "../lib/public-url";

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

/**
 * The schema with unknown top-level keys refused (`unrecognized_keys`, whose message names them):
 * a ZodObject gets a `never` catch-all, keeping its refinements; an object inside a pipe or
 * transform gets the same, the pipe kept around it. Anything else is returned as it is. The clone
 * inherits the original's metadata (its OpenAPI name), so the document keeps naming the schema.
 */
export function rejectingUnknownKeys<T>(schema: T): T {
  if (schema instanceof z.ZodObject) {
    return schema.clone({ ...schema._zod.def, catchall: z.never() }, { parent: true }) as T;
  }
  if (schema instanceof z.ZodPipe) {
    const def = schema._zod.def;
    return schema.clone({ ...def, in: rejectingUnknownKeys(def.in) }, { parent: true }) as T;
  }
  return schema;
}

// One rule for the whole API: a body key the endpoint does not list is a validation failure,
// never silently dropped, so a client's typo or a field it may not set is reported, not ignored.
const jsonContent = <T>(schema: T) => ({ content: { "application/json": { schema: rejectingUnknownKeys(schema) } } });

/** A required JSON request body for `defineRoute({ request })`; unknown top-level keys are refused. */
export const jsonBody = <T>(schema: T) => ({ body: { ...jsonContent(schema), required: true } });

/** An optional JSON body: a request without a JSON content type validates as `{}`; unknown top-level keys are refused. */
export const optionalJsonBody = <T>(schema: T) => ({ body: { ...jsonContent(schema), required: false } });

/** The URL as the one rule re-serializes it, or a validation issue (`prefix` + the rule's reason). */
function publicUrlOrIssue(value: string, ctx: z.RefinementCtx, prefix: string): string {
  const parsed = parsePublicHttpsUrl(value);
  if (parsed.ok) return parsed.url;
  ctx.addIssue({ code: "custom", message: `${prefix}${parsed.reason}`, input: value });
  return z.NEVER;
}

/**
 * A URL given to store and show to others (embeds, videos, logos, avatars): the one URL rule
 * (`parsePublicHttpsUrl`, src/core/lib/public-url.ts), stored as the WHATWG parser serializes it.
 */
export function publicHttpsUrl() {
  return z
    .string()
    .trim()
    .max(PUBLIC_URL_MAX)
    .transform((value, ctx) => publicUrlOrIssue(value, ctx, ""))
    .openapi({ type: "string", format: "uri", maxLength: PUBLIC_URL_MAX, example: "https://cdn.example.com/a.png" });
}

/**
 * An image reference: a public https URL (`publicHttpsUrl`'s rule, stored re-serialized) or the
 * UUID of a media asset of the school, lower-cased like every stored id. Reads turn an asset into
 * a signed link (`mediaUrl`, src/platform/media/links.ts).
 */
export function mediaReference() {
  return z
    .string()
    .trim()
    .max(PUBLIC_URL_MAX)
    .transform((value, ctx) => (UUID_PATTERN.test(value) ? value.toLowerCase() : publicUrlOrIssue(value, ctx, "must be a media-asset UUID or a public https URL: ")));
}

/** The answer of a delete: `{ deleted: true }`. */
export const DeletedResult = z.object({ deleted: z.literal(true) });

/** C0 controls, DEL and C1 controls; `allowing` keeps tab and newline in multi-line fields. */
const CONTROL_CHARS = /[\u0000-\u001F\u007F-\u009F]/;
const CONTROL_CHARS_BUT_TAB_NEWLINE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;
/** Embeddings, overrides and isolates: they make a name display as something other than what it is. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

/**
 * A name, title or slug: trimmed, within its length, free of control characters and bidi overrides
 * (tab and newline allowed only where `multiline`). Each endpoint's validator answers with its own
 * identifier.
 */
export function plainText(options: { min?: number; max: number; multiline?: boolean }) {
  const control = options.multiline ? CONTROL_CHARS_BUT_TAB_NEWLINE : CONTROL_CHARS;
  return z
    .string()
    .trim()
    .min(options.min ?? 0)
    .max(options.max)
    .refine((value) => !control.test(value), "must not contain control characters")
    .refine((value) => !BIDI_CONTROLS.test(value), "must not contain bidirectional override characters");
}

/**
 * A search term (`q`): trimmed, at most `max` characters, no control characters (a NUL would end
 * a C string early in some engines and match everything). Every character of it is taken
 * literally (`containsText`). An empty term means no filter.
 */
export function searchTerm(max = 100) {
  return z
    .string()
    .trim()
    .max(max)
    .refine((value) => !CONTROL_CHARS.test(value), "must not contain control characters")
    .optional()
    .transform((value) => (value ? value : undefined));
}

/** `true` / `false` in a query string; anything else is `invalid_params`. */
export const queryFlag = (description: string) =>
  z
    .enum(["true", "false"])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === "true"))
    .openapi({ type: "string", enum: ["true", "false"], description });
