import { z } from "@hono/zod-openapi";
import { rejectingUnknownKeys, uuidField } from "../../core/http/fields";
import { WINDOW_LEVELS } from "../../db/schema";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });
const instant = z.iso
  .datetime({ offset: true })
  .nullable()
  .optional()
  .openapi({ description: "ISO 8601 (UTC, or with an offset that is converted); null or absent for no bound", example: "2030-09-01T08:00:00Z" });

// ---------------------------------------------------------------------------------------------
// Requests

/** A window's dates; the verb checks that one bound is set and that they are in order. */
export const WindowBody = z
  .object({
    starts_at: instant,
    ends_at: instant,
    allow_before_start: z.boolean().optional().openapi({ description: "Open before starts_at (default false)" }),
    allow_after_end: z.boolean().optional().openapi({ description: "Open after ends_at (default false)" }),
  })
  .openapi("ScheduleWindowRequest");

export type WindowInput = z.infer<typeof WindowBody>;

export const GroupGridQuery = z.object({
  course_id: uuidField.openapi({ description: "The course whose grid of this group is read (required)" }),
});

/** The node of a group grid: module_id for module and lesson levels, lesson_id for lesson level. */
const gridNode = {
  course_id: uuidField,
  level: z.enum(WINDOW_LEVELS),
  module_id: uuidField.nullable().optional().openapi({ description: "Required for levels module and lesson" }),
  lesson_id: uuidField.nullable().optional().openapi({ description: "Required for level lesson" }),
};

function nodeIdsGiven(body: { level: (typeof WINDOW_LEVELS)[number]; module_id?: string | null; lesson_id?: string | null }, ctx: z.core.$RefinementCtx) {
  if (body.level !== "course" && !body.module_id) ctx.addIssue({ code: "custom", path: ["module_id"], message: `is required at level ${body.level}` });
  if (body.level === "lesson" && !body.lesson_id) ctx.addIssue({ code: "custom", path: ["lesson_id"], message: "is required at level lesson" });
}

export const GroupGridPutBody = z
  .object({ ...gridNode, window: rejectingUnknownKeys(WindowBody) })
  .superRefine(nodeIdsGiven)
  .openapi("GroupScheduleWindowRequest");

export const GroupGridDeleteBody = z.object(gridNode).superRefine(nodeIdsGiven).openapi("GroupScheduleClearRequest");

export type GridNodeInput = z.infer<typeof GroupGridDeleteBody>;

// ---------------------------------------------------------------------------------------------
// Responses

export const WindowObject = z
  .object({
    id: uuid,
    course_id: uuid,
    group_id: uuid.nullable().openapi({ description: "Null in the default grid" }),
    level: z.enum(WINDOW_LEVELS),
    module_id: uuid.nullable(),
    lesson_id: uuid.nullable(),
    starts_at: timestamp.nullable(),
    ends_at: timestamp.nullable(),
    allow_before_start: z.boolean(),
    allow_after_end: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("ScheduleWindow");

export const WindowAnswer = z.object({ window: WindowObject.nullable() }).openapi("ScheduleWindowAnswer");

export const ClearedAnswer = z.object({ cleared: z.literal(true) }).openapi("ScheduleCleared");

export const GridAnswer = z
  .object({
    course_id: uuid,
    group_id: uuid.nullable(),
    windows: z.array(WindowObject).openapi({ description: "The grid's windows in course order: the course's, then each module's followed by its lessons'" }),
  })
  .openapi("ScheduleGrid");
