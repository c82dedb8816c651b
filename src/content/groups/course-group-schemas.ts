import { z } from "@hono/zod-openapi";
import { searchTerm, uuidField } from "../../core/http/fields";
import { uuidParam } from "../../core/http/pagination";
import { BULK_ENROLL_CAP, BulkEnrollResult } from "../enrollments/schemas";

export const GROUP_ENROLLMENTS_MAX_LIMIT = 100;
export const GROUP_ENROLLMENTS_DEFAULT_LIMIT = 20;

// ---------------------------------------------------------------------------------------------
// Requests

export const CourseIdParams = z.object({ id: uuidParam });

/** The group id is checked by the verb, so a bad one gets its own identifier (`invalid_group_id`). */
export const GroupLinkParams = z.object({
  id: uuidParam,
  group_id: z.string().openapi({ format: "uuid", description: "The group's id" }),
});

/**
 * `page` and `limit` are read leniently (the contract turns a bad value into the default instead
 * of refusing it), so they arrive as text, repeated or not, and the verb coerces them.
 */
const lenientNumber = (description: string) => z.union([z.string(), z.array(z.string())]).optional().openapi({ type: "integer", description });

export const ListGroupEnrollmentsQuery = z.object({
  q: searchTerm(100).openapi({ description: "Search in the group's name; `%` and `_` match themselves" }),
  page: lenientNumber("Page from 1; anything else reads as 1"),
  limit: lenientNumber(`1 to ${GROUP_ENROLLMENTS_MAX_LIMIT}; anything else reads as ${GROUP_ENROLLMENTS_DEFAULT_LIMIT}`),
});

export const EnrollGroupBody = z.object({ group_id: uuidField }).openapi("EnrollGroupRequest");

/** Exactly one of the two, checked by the verb (`invalid_body` otherwise); the cap and the ids are checked as in enroll/bulk. */
export const EnrollBulkBody = z
  .object({
    group_id: uuidField.optional().openapi({ description: "Enroll the group (its permanent course link), as POST /courses/{id}/group-enrollments" }),
    student_ids: z
      .array(z.string().openapi({ format: "uuid" }))
      .min(1)
      .optional()
      .openapi({ description: `1 to ${BULK_ENROLL_CAP} student ids for a one-off direct enrollment, as POST /courses/{id}/enroll/bulk` }),
  })
  .openapi("EnrollBulkRequest");

// ---------------------------------------------------------------------------------------------
// Responses

export const GroupEnrollment = z
  .object({
    id: z.string(),
    course_id: z.string(),
    group_id: z.string(),
    name: z.string(),
    description: z.string(),
    logo: z.string().nullable().openapi({ description: "The stored value: a media-asset id or a URL" }),
    logo_url: z.string().nullable().openapi({ description: "A ready link to the logo" }),
    member_count: z.number().int().openapi({ description: "Members who are live students" }),
    enrolled_students_count: z.number().int().openapi({ description: "Live students whose active enrollment holds this group's access" }),
    would_remove_count: z.number().int().openapi({ description: "Of those, the ones removing the group would unenroll (no other access source)" }),
    would_retain_count: z.number().int().openapi({ description: "Of those, the ones who keep access through another source" }),
    enrolled_at: z.string(),
    enrolled_by: z.string().nullable(),
  })
  .openapi("CourseGroupEnrollment");

export const GroupEnrollmentList = z
  .object({
    group_enrollments: z.array(GroupEnrollment),
    counts: z.object({
      groups: z.number().int().openapi({ description: "Groups enrolled in the course (whatever q)" }),
      students: z.number().int().openapi({ description: "Distinct live students with access through at least one enrolled group (whatever q)" }),
    }),
    total: z.number().int().openapi({ description: "Enrolled groups matching q" }),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .openapi("CourseGroupEnrollmentList");

export const EnrollGroupResult = z
  .object({
    group_enrollment: GroupEnrollment,
    enrolled_count: z.number().int().openapi({ description: "Members who got new access (no active enrollment before)" }),
    already_enrolled_count: z.number().int().openapi({ description: "Members who already had an active enrollment" }),
  })
  .openapi("EnrollGroupResult");

export const UnenrollGroupResult = z
  .object({
    removed_count: z.number().int().openapi({ description: "Enrollments closed (the group was their last access source)" }),
    retained_count: z.number().int().openapi({ description: "Students who keep access through another source" }),
  })
  .openapi("UnenrollGroupResult");

export const EnrollBulkResult = z.union([EnrollGroupResult, BulkEnrollResult]).openapi("EnrollBulkResult");
