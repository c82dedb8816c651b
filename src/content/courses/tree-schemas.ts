import { z } from "@hono/zod-openapi";
import { plainText, uuidField } from "../../core/http/fields";
import { reorderBody } from "../../core/http/reorder";
import { richTextField } from "../../core/lib/sanitize";
import { BLOCK_TYPES } from "../../db/schema";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });
const title = plainText({ min: 1, max: 255 });

// ---------------------------------------------------------------------------------------------
// Requests

export const CreateModuleBody = z
  .object({
    title,
    description: richTextField({ max: 10000 }).optional(),
  })
  .openapi("CreateModuleRequest");

export const UpdateModuleBody = z
  .object({
    title: title.optional(),
    description: richTextField({ max: 10000 }).optional(),
  })
  .openapi("UpdateModuleRequest");

export const CreateLessonBody = z
  .object({
    title,
    screenshot_protection_enabled: z.boolean().optional(),
  })
  .openapi("CreateLessonRequest");

export const UpdateLessonBody = z
  .object({
    title: title.optional(),
    screenshot_protection_enabled: z.boolean().optional(),
  })
  .openapi("UpdateLessonRequest");

export const CoverImageBody = z
  .object({
    cover_image_id: uuidField.nullable().openapi({ description: "A confirmed image of the school; null removes the cover." }),
  })
  .openapi("CoverImageRequest");

export const ReorderModulesBody = reorderBody("module_ids", { max: 500 }).openapi("ReorderModulesRequest");
export const ReorderLessonsBody = reorderBody("lesson_ids", { max: 500 }).openapi("ReorderLessonsRequest");

export const LessonGroupsBody = z
  .object({
    group_ids: z
      .array(uuidField)
      .max(200, "must list at most 200 groups")
      .openapi({ description: "The lesson's access groups (0-200); empty opens the lesson to every enrolled student." }),
  })
  .openapi("LessonGroupsRequest");

// ---------------------------------------------------------------------------------------------
// Responses

/**
 * A student's window status on a node (course, module, lesson); staff get none of these fields.
 * `locked_reason` is `course_not_started` or `course_ended` while a window closes the node.
 */
export const WindowStatusFields = {
  locked: z.boolean().optional().openapi({ description: "Students only: the node's window is closed." }),
  locked_reason: z.enum(["course_not_started", "course_ended"]).nullable().optional(),
  available_from: timestamp.nullable().optional(),
  available_until: timestamp.nullable().optional(),
};

/** A block as the module index and lesson lists carry it (payload null and locked for a student who may not open it). */
export const LightBlock = z
  .object({
    id: uuid,
    type: z.enum(BLOCK_TYPES),
    position: z.number().int(),
    payload: z.record(z.string(), z.unknown()).nullable(),
    locked: z.boolean(),
    question_count: z.number().int().nullable().optional().openapi({ description: "quiz_ref blocks only." }),
  })
  .openapi("LightBlock");

/** The lesson object without `blocks`: the lesson readers add the block list they carry (light or full). */
export const LessonFields = z.object({
  id: uuid,
  module_id: uuid,
  course_id: uuid,
  title: z.string(),
  position: z.number().int(),
  screenshot_protection_enabled: z.boolean(),
  cover_image_id: uuid.nullable(),
  cover_image_url: z.string().nullable(),
  passed: z.boolean().openapi({ description: "True only for a student who completed every block of a lesson that has at least one." }),
  created_at: timestamp,
  updated_at: timestamp,
  ...WindowStatusFields,
});

export const LessonObject = LessonFields.extend({ blocks: z.array(LightBlock) }).openapi("Lesson");

export const ModuleObject = z
  .object({
    id: uuid,
    course_id: uuid,
    tenant_id: uuid,
    title: z.string(),
    description: z.string(),
    position: z.number().int(),
    cover_image_id: uuid.nullable(),
    cover_image_url: z.string().nullable(),
    lessons_count: z.number().int().openapi({ description: "The lessons the caller sees." }),
    lessons: z.array(LessonObject),
    created_at: timestamp,
    updated_at: timestamp,
    ...WindowStatusFields,
  })
  .openapi("Module");

export const ModuleIndex = z
  .object({
    modules: z.array(ModuleObject),
    total_lessons: z.number().int().openapi({ description: "The lessons the caller sees, over all modules." }),
  })
  .openapi("ModuleIndex");

export const LessonList = z.object({ lessons: z.array(LessonObject) }).openapi("LessonList");

export const CoverImageResult = z
  .object({ cover_image_id: uuid.nullable(), cover_image_url: z.string().nullable() })
  .openapi("CoverImage");

export const ModulesReordered = z.object({ reordered: z.number().int() }).openapi("ModulesReordered");
export const LessonsReordered = z.object({ reordered: z.number().int() }).openapi("LessonsReordered");

export const LessonGroups = z.object({ group_ids: z.array(uuid) }).openapi("LessonGroups");
