import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { enrollmentsErrors } from "../../enrollments/errors";
// Registers the course-delete guard: a course with an enrolled group answers 409.
import "../course-guard";
import * as s from "../course-group-schemas";
import { enrollBulk, enrollGroup, listCourseGroups, unenrollGroup } from "../course-group-service";
import { groupsErrors as e } from "../errors";

export const courseGroupsRoutes = createArea();

const tags = ["Groups"];
const manageGroups = { gate: gates.permission("can_manage_groups"), deny: "permission_denied" } as const;

const listRoute = defineRoute({
  method: "get",
  path: "/t/courses/{id}/group-enrollments",
  ...manageGroups,
  errors: { param: "invalid_course_id", query: "invalid_params" },
  tags,
  summary: "The groups enrolled in a course with what removing each would do; counts of groups and of students with group access",
  request: { params: s.CourseIdParams, query: s.ListGroupEnrollmentsQuery },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.GroupEnrollmentList) },
});

courseGroupsRoutes.openapi(listRoute, async (c) =>
  ok(c, await listCourseGroups(tenantCtx(c), { courseId: c.req.valid("param").id, query: c.req.valid("query") })),
);

const enrollRoute = defineRoute({
  method: "post",
  path: "/t/courses/{id}/group-enrollments",
  audit: { none: "grants access only; the audit log records access taken away (group_enrollment.removed)" },
  ...manageGroups,
  errors: { param: "invalid_course_id" },
  tags,
  summary: "Enroll a group in a published course: its members get the group's access (201 for a new link, 200 when it existed)",
  request: { params: s.CourseIdParams, ...jsonBody(s.EnrollGroupBody) },
  failures: [e.COURSE_NOT_FOUND, e.GROUP_NOT_FOUND],
  responses: { 200: okResponse(s.EnrollGroupResult, "The group was enrolled already"), 201: okResponse(s.EnrollGroupResult, "Enrolled") },
});

courseGroupsRoutes.openapi(enrollRoute, async (c) => {
  const { created, data } = await enrollGroup(tenantCtx(c), { courseId: c.req.valid("param").id, groupId: c.req.valid("json").group_id });
  return created ? ok(c, data, 201) : ok(c, data, 200);
});

const unenrollRoute = defineRoute({
  method: "delete",
  path: "/t/courses/{id}/group-enrollments/{group_id}",
  audit: { actions: ["group_enrollment.removed"] },
  ...manageGroups,
  errors: { param: "invalid_course_id" },
  tags,
  summary: "Remove a group's enrollment: only its access source goes; students with another source stay (progress kept)",
  request: { params: s.GroupLinkParams },
  failures: [e.INVALID_GROUP_ID, e.COURSE_GROUP_ENROLLMENT_NOT_FOUND],
  responses: { 200: okResponse(s.UnenrollGroupResult) },
});

courseGroupsRoutes.openapi(unenrollRoute, async (c) => {
  const { id, group_id } = c.req.valid("param");
  return ok(c, await unenrollGroup(tenantCtx(c), { courseId: id, groupId: group_id }));
});

const bulkRoute = defineRoute({
  method: "post",
  path: "/t/courses/{id}/enroll-bulk",
  audit: { none: "grants access only (a group link or direct enrollments); the audit log records access taken away" },
  // The derived id would be the same as POST /t/courses/{id}/enroll/bulk's.
  operationId: "postTCoursesByIdEnrollDashBulk",
  ...manageGroups,
  errors: { param: "invalid_course_id", body: "invalid_body" },
  tags,
  summary: "Exactly one of group_id (answers as POST group-enrollments, 201 or 200) or student_ids (answers as POST enroll/bulk)",
  request: { params: s.CourseIdParams, ...jsonBody(s.EnrollBulkBody) },
  failures: [e.INVALID_BODY, e.COURSE_NOT_FOUND, e.GROUP_NOT_FOUND, enrollmentsErrors.STUDENT_IDS_CAP_EXCEEDED],
  responses: { 200: okResponse(s.EnrollBulkResult), 201: okResponse(s.EnrollGroupResult, "The group was enrolled (a new link)") },
});

courseGroupsRoutes.openapi(bulkRoute, async (c) => {
  const { status, data } = await enrollBulk(tenantCtx(c), { courseId: c.req.valid("param").id, body: c.req.valid("json") });
  return status === 201 ? ok(c, data, 201) : ok(c, data, 200);
});
