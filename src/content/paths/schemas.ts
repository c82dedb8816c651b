import { z } from "@hono/zod-openapi";
import { plainText, searchTerm, uuidField } from "../../core/http/fields";
import { offsetQuery } from "../../core/http/pagination";
import { reorderBody } from "../../core/http/reorder";
import { PATH_STATUSES } from "../../db/schema";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

export const PATH_COURSES_MAX = 200;

const title = plainText({ min: 1, max: 255 }).openapi({ example: "Frontend developer" });
const description = plainText({ max: 4000, multiline: true }).openapi({ description: "Plain text, at most 4000 characters" });

// ---------------------------------------------------------------------------------------------
// Requests

export const ListPathsQuery = z.object({
  q: searchTerm(255).openapi({ description: "Substring of the title; `%` and `_` match themselves" }),
  // Checked by the service: an unknown value has its own identifier (`invalid_status_filter`).
  status: z
    .string()
    .optional()
    .openapi({ type: "string", enum: [...PATH_STATUSES], description: "`draft` or `published`; any other value is 400 `invalid_status_filter`" }),
  ...offsetQuery({ maxLimit: 200, defaultLimit: 50 }),
});

export const CreatePathBody = z
  .object({
    title,
    description: description.optional(),
  })
  .openapi("CreateLearningPathRequest");

export const UpdatePathBody = z
  .object({
    title: title.optional(),
    description: description.optional(),
  })
  .openapi("UpdateLearningPathRequest");

export const ReplaceCoursesBody = z
  .object({
    course_ids: z
      .array(uuidField)
      .max(PATH_COURSES_MAX)
      .openapi({ description: `The path's whole new set in order (0-${PATH_COURSES_MAX} live courses of the school, each once)` }),
  })
  .openapi("ReplaceLearningPathCoursesRequest");

export const ReorderCoursesBody = reorderBody("course_ids", { max: PATH_COURSES_MAX }).openapi("ReorderLearningPathCoursesRequest");

export const PathStudentsQuery = z.object(offsetQuery({ maxLimit: 200, defaultLimit: 50 }));

// ---------------------------------------------------------------------------------------------
// Responses

export const Path = z
  .object({
    id: uuid,
    title: z.string(),
    description: z.string(),
    status: z.enum(PATH_STATUSES),
    created_by: uuid.nullable(),
    course_count: z.number().int().openapi({ description: "The path's live courses the caller sees (students: published ones)" }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("LearningPath");

export const PathCourse = z
  .object({
    course_id: uuid,
    position: z.number().int(),
    title: z.string(),
  })
  .openapi("LearningPathCourse");

export const PathDetail = Path.extend({ courses: z.array(PathCourse) }).openapi("LearningPathDetail");

export const PathList = z
  .object({
    paths: z.array(Path),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi("LearningPathList");

export const ReplaceCoursesResult = z.object({ replaced: z.literal(true), count: z.number().int() }).openapi("ReplaceLearningPathCoursesResult");
export const PublishedResult = z.object({ published: z.literal(true) });
export const UnpublishedResult = z.object({ unpublished: z.literal(true) });
export const ReorderedResult = z.object({ reordered: z.number().int() });

export const PATH_COURSE_STATUSES = ["locked", "unlocked", "completed"] as const;

export const StudentPathCourse = z
  .object({
    course_id: uuid,
    position: z.number().int(),
    title: z.string(),
    status: z.enum(PATH_COURSE_STATUSES),
    unlocked_at: timestamp.nullable().openapi({ description: "Your enrollment time, once the course is not locked; null while locked or not enrolled" }),
    completed_at: timestamp.nullable(),
  })
  .openapi("StudentPathCourse");

export const StudentPath = z
  .object({
    path_id: uuid,
    title: z.string(),
    description: z.string(),
    courses: z.array(StudentPathCourse),
  })
  .openapi("StudentPath");

export const MyPaths = z.object({ paths: z.array(StudentPath) }).openapi("MyLearningPaths");

export const PathStudent = z
  .object({
    student_id: uuid,
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    is_active: z.boolean(),
    courses_unlocked: z.number().int().openapi({ description: "Courses not locked for the student (unlocked or completed)" }),
    courses_completed: z.number().int(),
    first_unlocked_at: timestamp.nullable(),
    last_activity_at: timestamp.nullable(),
  })
  .openapi("LearningPathStudent");

export const PathStudentList = z
  .object({
    students: z.array(PathStudent),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi("LearningPathStudentList");
