import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { duplicateCourse } from "../course-duplicate";
import { listCourses } from "../course-list";
import { bulkSetCourseStatus, setCourseStatus } from "../course-publish";
import * as s from "../course-schemas";
import { createCourse, deleteCourse, getCourse, setCourseCover, updateCourse } from "../course-service";
import { coursesErrors as e } from "../errors";

export const courseRoutes = createArea();

const tags = ["Courses"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "forbidden" } as const;

const createCourseRoute = defineRoute({
  method: "post",
  path: "/t/courses",
  ...manageCourses,
  tags,
  summary: "Create a course (draft, after the school's other courses)",
  request: jsonBody(s.CreateCourseBody),
  failures: [e.DUPLICATE_SLUG],
  responses: { 201: okResponse(s.CourseDetail) },
});

courseRoutes.openapi(createCourseRoute, async (c) => ok(c, await createCourse(tenantCtx(c), { body: c.req.valid("json") }), 201));

const listCoursesRoute = defineRoute({
  method: "get",
  path: "/t/courses",
  gate: gates.member,
  errors: { query: "invalid_params" },
  tags,
  summary: "List courses with counts per status (students: published courses only, with their progress)",
  request: { query: s.ListCoursesQuery },
  responses: { 200: okResponse(s.CourseList) },
});

courseRoutes.openapi(listCoursesRoute, async (c) => ok(c, await listCourses(tenantCtx(c), { query: c.req.valid("query") })));

for (const status of ["published", "draft"] as const) {
  const route = defineRoute({
    method: "post",
    path: status === "published" ? "/t/courses/bulk-publish" : "/t/courses/bulk-unpublish",
    ...manageCourses,
    errors: { body: "invalid_params" },
    tags,
    summary:
      status === "published"
        ? "Publish up to 100 courses; already published, deleted and unknown ids are skipped"
        : "Unpublish up to 100 courses; drafts, deleted and unknown ids are skipped",
    request: jsonBody(s.BulkCoursesBody),
    responses: { 200: okResponse(s.BulkCoursesResult) },
  });
  courseRoutes.openapi(route, async (c) => ok(c, await bulkSetCourseStatus(tenantCtx(c), { ids: c.req.valid("json").ids, status })));
}

const getCourseRoute = defineRoute({
  method: "get",
  path: "/t/courses/{id}",
  gate: gates.member,
  tags,
  summary: "One course with its totals; a student also gets progress and where to resume (drafts are 404 to students)",
  request: { params: IdParams },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.CourseDetail) },
});

courseRoutes.openapi(getCourseRoute, async (c) => ok(c, await getCourse(tenantCtx(c), { id: c.req.valid("param").id })));

const updateCourseRoute = defineRoute({
  method: "patch",
  path: "/t/courses/{id}",
  ...manageCourses,
  tags,
  summary: "Change a course's title, slug, description or sequential order",
  request: { params: IdParams, ...jsonBody(s.UpdateCourseBody) },
  failures: [e.DUPLICATE_SLUG, e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.CourseDetail) },
});

courseRoutes.openapi(updateCourseRoute, async (c) =>
  ok(c, await updateCourse(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })),
);

const deleteCourseRoute = defineRoute({
  method: "delete",
  path: "/t/courses/{id}",
  ...manageCourses,
  tags,
  summary: "Delete a course with its modules, lessons and blocks (soft); refused while a learning path or an enrolled group holds it",
  request: { params: IdParams },
  failures: [e.COURSE_NOT_FOUND, e.COURSE_IN_ACTIVE_PATH, e.COURSE_HAS_GROUP_ENROLLMENTS],
  responses: { 204: { description: "Deleted" } },
});

courseRoutes.openapi(deleteCourseRoute, async (c) => {
  await deleteCourse(tenantCtx(c), { id: c.req.valid("param").id });
  return c.body(null, 204);
});

for (const status of ["published", "draft"] as const) {
  const route = defineRoute({
    method: "post",
    path: status === "published" ? "/t/courses/{id}/publish" : "/t/courses/{id}/unpublish",
    ...manageCourses,
    tags,
    summary: status === "published" ? "Publish a course (idempotent)" : "Return a course to draft (idempotent)",
    request: { params: IdParams },
    failures: [e.COURSE_NOT_FOUND],
    responses: { 200: okResponse(s.CourseStatusResult) },
  });
  courseRoutes.openapi(route, async (c) => ok(c, await setCourseStatus(tenantCtx(c), { id: c.req.valid("param").id, status })));
}

const coverImageRoute = defineRoute({
  method: "patch",
  path: "/t/courses/{id}/cover-image",
  ...manageCourses,
  tags,
  summary: "Set a course's cover image (a confirmed image of the school)",
  request: { params: IdParams, ...jsonBody(s.CourseCoverImageBody) },
  failures: [e.INVALID_COVER_IMAGE, e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.CourseCoverImageResult) },
});

courseRoutes.openapi(coverImageRoute, async (c) =>
  ok(c, await setCourseCover(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })),
);

const duplicateRoute = defineRoute({
  method: "post",
  path: "/t/courses/{id}/duplicate",
  ...manageCourses,
  tags,
  summary: "Copy a course with its live modules, lessons, blocks and lesson access groups, as a draft",
  request: { params: IdParams },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 201: okResponse(s.CourseDetail) },
});

courseRoutes.openapi(duplicateRoute, async (c) => ok(c, await duplicateCourse(tenantCtx(c), { id: c.req.valid("param").id }), 201));
