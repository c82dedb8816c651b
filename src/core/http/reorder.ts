import { z } from "@hono/zod-openapi";
import { ApiError, errorCatalogue } from "./errors";
import { uuidField } from "./fields";

/** The failures of every reorder endpoint. */
export const orderingErrors = errorCatalogue({
  REORDER_DUPLICATE: [409, "reorder_duplicate", "The list names an id more than once."],
  REORDER_INCOMPLETE: [409, "reorder_incomplete", "The list must name every active item exactly once and nothing else."],
});

/**
 * A reorder body: `{ <field>: [uuid, …] }` with 1..max ids in their new order. An empty or
 * oversize list fails validation, so it answers 400 with the endpoint's body identifier.
 */
export function reorderBody<const K extends string>(field: K, options: { max: number }) {
  const ids = z
    .array(uuidField)
    .min(1, "must list at least one id")
    .max(options.max, `must list at most ${options.max} ids`)
    .openapi({ description: `Every active id exactly once, in the new order (1-${options.max}).` });
  return z.object({ [field]: ids } as { [P in K]: typeof ids });
}

/**
 * The list must be the exact set of active ids: duplicates are checked first (409
 * `reorder_duplicate`), then a missing, extra or foreign id (409 `reorder_incomplete`). Ids
 * compare as stored, lower-case (`uuidField` lower-cases what clients send).
 */
export function checkReorder(requestedIds: readonly string[], activeIds: readonly string[]): void {
  const requested = new Set(requestedIds);
  if (requested.size !== requestedIds.length) throw new ApiError(orderingErrors.REORDER_DUPLICATE);
  const active = new Set(activeIds);
  if (requested.size !== active.size || requestedIds.some((id) => !active.has(id))) throw new ApiError(orderingErrors.REORDER_INCOMPLETE);
}
