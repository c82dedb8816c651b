import { z } from "@hono/zod-openapi";
import { UUID_PATTERN } from "../lib/ids";

/** A UUID in a path, query or body; each route declares the identifier a malformed one gets. */
export const uuidField = z.string().regex(UUID_PATTERN, "must be a UUID").openapi({ format: "uuid" });

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
