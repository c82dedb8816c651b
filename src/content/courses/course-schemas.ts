import { z } from "@hono/zod-openapi";
import { plainText, searchTerm, uuidField } from "../../core/http/fields";
import { pageQuery } from "../../core/http/pagination";
import { PercentString } from "../../core/db/decimal";
import { richTextField } from "../../core/lib/sanitize";
import { COURSE_STATUSES } from "../../db/schema";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX = 120;

const title = plainText({ min: 2, max: 255 });
const slug = plainText({ min: 2, max: SLUG_MAX })
  .transform((value) => value.toLowerCase())
  .refine((value) => SLUG_PATTERN.test(value), "must be latin letters, digits and single hyphens, not starting or ending with a hyphen")
  .openapi({
    type: "string",
    example: "intro-to-algebra",
    description:
      "2-120 characters, unique among the school's live courses; stored lower-cased. Latin letters, digits and single hyphens (`a-z`, `0-9`, `-`), not starting or ending with a hyphen.",
  });
const description = richTextField({ max: 10000 }).openapi({ description: "Rich text, at most 10000 characters as sent; stored sanitized." });

// ---------------------------------------------------------------------------------------------
// Requests

export const CreateCourseBody = z
  .object({
    title,
    slug,
    description: description.optional(),
  })
  .openapi("CreateCourseRequest");

export const UpdateCourseBody = z
  .object({
    title: title.optional(),
    slug: slug.optional(),
    description: description.optional(),
    sequential_required: z.boolean().optional(),
  })
  .openapi("UpdateCourseRequest");

export const ListCoursesQuery = z.object({
  ...pageQuery({ maxLimit: 100, defaultLimit: 20 }),
  q: searchTerm(200).openapi({ description: "Search in title and description; `%` and `_` match themselves" }),
  status: z
    .string()
    .optional()
    .transform((value) => (COURSE_STATUSES as readonly string[]).includes(value ?? "") ? (value as (typeof COURSE_STATUSES)[number]) : undefined)
    .openapi({ type: "string", enum: [...COURSE_STATUSES], description: "`published` or `draft`; any other value is ignored" }),
  enrolled: z
    .enum(["true", "false"])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === "true"))
    .openapi({ type: "string", enum: ["true", "false"], description: "Students only: `true` lists the courses they are enrolled in, `false` the others; ignored for staff" }),
});

export const CourseCoverImageBody = z
  .object({
    cover_image_id: uuidField.openapi({ description: "A confirmed image of the school." }),
  })
  .openapi("CourseCoverImageRequest");

export const BulkCoursesBody = z
  .object({ ids: z.array(uuidField).min(1).max(100).openapi({ description: "1-100 course ids" }) })
  .openapi("BulkCoursesRequest");

// ---------------------------------------------------------------------------------------------
// Responses

const Progress = z
  .object({
    blocks_completed: z.number().int(),
    total_blocks: z.number().int().openapi({ description: "The course's block count at the last recompute (the snapshot)" }),
    pct: PercentString,
    completed_at: timestamp.nullable(),
  })
  .openapi("CourseProgress");

const Resume = z
  .object({
    lesson_index: z.number().int().openapi({ description: "0-based index of the lesson among all live lessons of the course (module, then lesson order)" }),
    module_id: uuid,
    lesson_id: uuid,
  })
  .openapi("CourseResume");

/** Students only: the course's date window (every course is open while it has no schedule). */
const windowFields = {
  locked: z.boolean().optional().openapi({ description: "Students only" }),
  locked_reason: z.enum(["course_not_started", "course_ended"]).nullable().optional(),
  available_from: timestamp.nullable().optional(),
  available_until: timestamp.nullable().optional(),
};

const courseFields = {
  id: uuid,
  tenant_id: uuid,
  title: z.string(),
  slug: z.string(),
  description: z.string(),
  status: z.enum(COURSE_STATUSES),
  sequential_required: z.boolean(),
  position: z.number().int(),
  cover_image_id: uuid.nullable(),
  cover_image_url: z.string().openapi({ description: "A fresh signed link; empty when the course has no cover" }),
  auth_has_access: z.boolean().openapi({ description: "The student has an active enrollment; always false for staff" }),
  created_at: timestamp,
  updated_at: timestamp,
};

export const CourseDetail = z
  .object({
    ...courseFields,
    total_blocks: z.number().int().openapi({ description: "Live blocks of the course" }),
    total_lessons: z.number().int(),
    total_students: z.number().int().openapi({ description: "Active enrollments" }),
    progress: Progress.optional().openapi({ description: "Only for an enrolled student" }),
    resume: Resume.optional().openapi({ description: "Only for an enrolled student who opened a block" }),
    ...windowFields,
  })
  .openapi("Course");

export const CourseListItem = z
  .object({
    ...courseFields,
    students_count: z.number().int().openapi({ description: "Active enrollments" }),
    completion_rate: z
      .number()
      .int()
      .openapi({ description: "Percent of active enrollments that are completed, an integer 0-100 rounded half up (2 of 3: 67); 0 without any", example: 67 }),
    total_blocks: z.number().int().openapi({ description: "Live blocks of the course" }),
    progress: Progress.optional().openapi({ description: "Only for an enrolled student" }),
    ...windowFields,
  })
  .openapi("CourseListItem");

export const CourseList = z
  .object({
    courses: z.array(CourseListItem),
    counts: z
      .object({ all: z.number().int(), published: z.number().int(), draft: z.number().int() })
      .openapi({ description: "Per status, with every filter but `status` applied; draft is always 0 for students" }),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .openapi("CourseList");

export const CourseStatusResult = z.object({ status: z.enum(COURSE_STATUSES) }).openapi("CourseStatusResult");

export const CourseCoverImageResult = z.object({ cover_image_id: uuid }).openapi("CourseCoverImageResult");

export const BulkCoursesResult = z
  .object({
    affected: z.number().int().openapi({ description: "How many courses changed status" }),
    skipped: z.array(uuid).openapi({ description: "The ids not changed: already in that status, deleted, of another school or unknown" }),
  })
  .openapi("BulkCoursesResult");
