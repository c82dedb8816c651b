import { z } from "@hono/zod-openapi";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { defineRoute, tenantCtx } from "../../core/http/route";
// Registers the course tree's audience fields and option kinds with the notifications area.
import "./audience";
import { bulkEnroll, removeEnrollment, selfEnroll } from "./enroll-service";
import { enrollmentsErrors as e } from "./errors";
import { exportEnrollmentsCsv } from "./export-service";
import { listEnrollments, myCourses } from "./list-service";
import * as s from "./schemas";

export const enrollmentRoutes = createArea();

const tags = ["Enrollments"];
const manageStudents = { gate: gates.permission("can_manage_students"), deny: "forbidden" } as const;
const student = { gate: gates.student(), schoolRequired: true } as const;

const enrollRoute = defineRoute({
  method: "post",
  path: "/t/courses/{id}/enroll",
  audit: { none: "a student enrolling themselves (self-service)" },
  ...student,
  errors: { param: "invalid_course_id" },
  tags,
  summary: "Enroll yourself in a published course: 201 when new, 200 when already enrolled or restored (progress kept); no body",
  request: { params: s.CourseIdParams },
  failures: [e.COURSE_NOT_FOUND, e.COURSE_LOCKED],
  responses: { 200: okResponse(s.Enrollment, "Already enrolled, or restored"), 201: okResponse(s.Enrollment, "Enrolled") },
});

enrollmentRoutes.openapi(enrollRoute, async (c) => {
  const { enrollment, created } = await selfEnroll(tenantCtx(c), { courseId: c.req.valid("param").id });
  return created ? ok(c, enrollment, 201) : ok(c, enrollment, 200);
});

const listRoute = defineRoute({
  method: "get",
  path: "/t/courses/{id}/enrollments",
  ...manageStudents,
  errors: { param: "invalid_course_id", query: "invalid_params" },
  tags,
  summary: "A course's active enrollments with progress and status (counts and avg_progress follow q, not status); restricted curators see their own students",
  request: { params: s.CourseIdParams, query: s.ListEnrollmentsQuery },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.EnrollmentList) },
});

enrollmentRoutes.openapi(listRoute, async (c) =>
  ok(c, await listEnrollments(tenantCtx(c), { courseId: c.req.valid("param").id, query: c.req.valid("query") })),
);

const exportRoute = defineRoute({
  method: "get",
  path: "/t/courses/{id}/enrollments/export.csv",
  ...manageStudents,
  errors: { param: "invalid_course_id" },
  tags,
  summary: "Every active enrollment of the course as CSV (UTF-8 with BOM, streamed); restricted curators get their own students",
  description:
    "Columns: ФИО, Email, Дата записи, Прогресс %, Завершено блоков, Всего блоков, Статус (активен, в зоне риска, завершил, " +
    "не начал), Последняя активность. Times are the school's local time (DD.MM.YYYY HH:MM). Text cells that start with = + - @ " +
    "get a leading apostrophe so spreadsheets do not run them as formulas.",
  request: { params: s.CourseIdParams },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 200: { description: "The CSV file", content: { "text/csv": { schema: z.string() } } } },
});

enrollmentRoutes.openapi(exportRoute, async (c) => exportEnrollmentsCsv(tenantCtx(c), { courseId: c.req.valid("param").id }));

const bulkRoute = defineRoute({
  method: "post",
  path: "/t/courses/{id}/enroll/bulk",
  audit: { none: "grants access only; the audit log records access taken away (05 section 6: enrollment removed)" },
  ...manageStudents,
  errors: { param: "invalid_course_id", body: "invalid_body" },
  tags,
  summary: "Enroll up to 500 students directly; always 200 with what was enrolled and why the rest was skipped",
  request: { params: s.CourseIdParams, ...jsonBody(s.BulkEnrollBody) },
  failures: [e.STUDENT_IDS_CAP_EXCEEDED, e.INVALID_BODY, e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.BulkEnrollResult) },
});

enrollmentRoutes.openapi(bulkRoute, async (c) =>
  ok(c, await bulkEnroll(tenantCtx(c), { courseId: c.req.valid("param").id, studentIds: c.req.valid("json").student_ids })),
);

const removeRoute = defineRoute({
  method: "delete",
  path: "/t/courses/{id}/enrollments/{student_id}",
  audit: { actions: ["enrollment.removed"] },
  ...manageStudents,
  errors: { param: "invalid_course_id" },
  tags,
  summary: "Remove a student's direct enrollment; the enrollment closes when no access source is left (progress kept)",
  request: { params: s.EnrollmentParams },
  failures: [e.INVALID_STUDENT_ID, e.ENROLLMENT_NOT_FOUND, e.ENROLLMENT_MANAGED_BY_GROUP],
  responses: { 204: { description: "Removed" } },
});

enrollmentRoutes.openapi(removeRoute, async (c) => {
  const { id, student_id } = c.req.valid("param");
  await removeEnrollment(tenantCtx(c), { courseId: id, studentId: student_id });
  return c.body(null, 204);
});

const myCoursesRoute = defineRoute({
  method: "get",
  path: "/t/me/courses",
  ...student,
  errors: { query: "invalid_params" },
  tags,
  summary: "Your active enrollments (unpublished courses included), most recently active first",
  request: { query: s.MyCoursesQuery },
  responses: { 200: okResponse(z.array(s.StudentCourseRow)) },
});

enrollmentRoutes.openapi(myCoursesRoute, async (c) => ok(c, await myCourses(tenantCtx(c), c.req.valid("query"))));
