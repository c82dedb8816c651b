import { z } from "@hono/zod-openapi";
import { searchTerm } from "../../core/http/fields";
import { offsetQuery, pageQuery, uuidParam } from "../../core/http/pagination";
import { ENROLLMENT_STATUSES } from "./status";

export const BULK_ENROLL_CAP = 500;

// ---------------------------------------------------------------------------------------------
// Requests

export const CourseIdParams = z.object({ id: uuidParam });

/** The student id is checked by the verb, so a bad one gets its own identifier (`invalid_student_id`). */
export const EnrollmentParams = z.object({
  id: uuidParam,
  student_id: z.string().openapi({ format: "uuid", description: "The student's user id" }),
});

/** The service checks the count before each id's format, so more than 500 ids answer `student_ids_cap_exceeded`. */
export const BulkEnrollBody = z
  .object({
    student_ids: z
      .array(z.string().openapi({ format: "uuid" }))
      .min(1)
      .openapi({ description: `1 to ${BULK_ENROLL_CAP} student ids; more answers 400 student_ids_cap_exceeded` }),
  })
  .openapi("BulkEnrollRequest");

export const ListEnrollmentsQuery = z.object({
  ...pageQuery({ maxLimit: 100, defaultLimit: 20 }),
  q: searchTerm(100).openapi({ description: "Search in the student's first name, last name and email; `%` and `_` match themselves" }),
  status: z.enum(ENROLLMENT_STATUSES).optional().openapi({ description: "Only rows of this status bucket (the counts ignore it)" }),
});

export const MyCoursesQuery = z.object(offsetQuery({ maxLimit: 100, defaultLimit: 20 }));

// ---------------------------------------------------------------------------------------------
// Responses

const pctField = z.string().nullable().openapi({ description: "Percentage with two decimals; null when the course has no blocks", example: "66.67" });

export const Enrollment = z
  .object({
    id: z.string(),
    student_id: z.string(),
    course_id: z.string(),
    enrolled_at: z.string(),
    enrolled_by: z.string().nullable().openapi({ description: "Null for a self-enrollment" }),
    last_accessed_block_id: z.string().nullable(),
  })
  .openapi("Enrollment");

export const BulkEnrollResult = z
  .object({
    enrolled: z.array(z.string()),
    skipped: z.array(
      z.object({
        student_id: z.string(),
        reason: z.enum(["already_enrolled", "user_not_found", "wrong_tenant", "course_not_published", "not_in_scope"]),
      }),
    ),
    enrolled_count: z.number().int(),
    skipped_count: z.number().int(),
  })
  .openapi("BulkEnrollResult");

export const CuratorEnrollmentRow = z
  .object({
    enrollment_id: z.string(),
    student_id: z.string(),
    student_email: z.string(),
    student_first_name: z.string(),
    student_last_name: z.string(),
    enrolled_at: z.string(),
    enrolled_by: z.string().nullable(),
    blocks_completed: z.number().int(),
    total_blocks: z.number().int(),
    pct: pctField,
    last_accessed_at: z.string().nullable(),
    completed_at: z.string().nullable(),
    status: z.enum(ENROLLMENT_STATUSES).openapi({ description: "The row's bucket, as `status` filters and `counts` count" }),
  })
  .openapi("CourseEnrollmentRow");

export const EnrollmentList = z
  .object({
    enrollments: z.array(CuratorEnrollmentRow),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    counts: z.object({
      all: z.number().int(),
      active: z.number().int(),
      risk: z.number().int(),
      done: z.number().int(),
      notstarted: z.number().int(),
    }),
    avg_progress: z.string().nullable().openapi({
      description: "The mean of the matched rows' pct (rows of courses without blocks left out), rounded half up to two decimals (16.67 and 0.00: \"8.34\"); null without such rows",
      example: "8.34",
    }),
  })
  .openapi("CourseEnrollmentList");

export const StudentCourseRow = z
  .object({
    course_id: z.string(),
    course_title: z.string(),
    course_status: z.string(),
    cover_image_id: z.string().nullable(),
    enrollment_id: z.string(),
    enrolled_at: z.string(),
    last_accessed_block_id: z.string().nullable(),
    last_accessed_at: z.string().nullable(),
    blocks_completed: z.number().int(),
    total_blocks: z.number().int(),
    pct: pctField,
    completed_at: z.string().nullable(),
    auth_has_access: z.literal(true),
  })
  .openapi("StudentCourseRow");
