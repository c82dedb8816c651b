import { z } from "@hono/zod-openapi";
import { UUID_PATTERN } from "../lib/ids";

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
export const uuidParam = z.string().regex(UUID_PATTERN, "must be a UUID").openapi({ format: "uuid" });
