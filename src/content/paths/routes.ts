import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { DeletedResult, jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { IdParams } from "../../core/http/pagination";
import { orderingErrors } from "../../core/http/reorder";
import { defineRoute, tenantCtx } from "../../core/http/route";
// Registers the paths' audience field and option kind with the notifications area.
import "./audience";
// Registers the course-delete guard: a course in a published path stays.
import "./course-guard";
import { pathsErrors as e } from "./errors";
import { replacePathCourses, reorderPathCourses } from "./path-courses";
import { createPath, deletePath, getPath, listPaths, publishPath, unpublishPath, updatePath } from "./path-service";
import * as s from "./schemas";
import { myPaths, pathStudents } from "./student-paths";

export const pathRoutes = createArea();

const tags = ["Learning paths"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "permission_denied" } as const;

const listRoute = defineRoute({
  method: "get",
  path: "/t/learning-paths",
  gate: gates.member,
  tags,
  summary: "List learning paths, newest first (students: published paths only)",
  request: { query: s.ListPathsQuery },
  failures: [e.INVALID_STATUS_FILTER],
  responses: { 200: okResponse(s.PathList) },
});

pathRoutes.openapi(listRoute, async (c) => ok(c, await listPaths(tenantCtx(c), { query: c.req.valid("query") })));

const createRoute = defineRoute({
  method: "post",
  path: "/t/learning-paths",
  ...manageCourses,
  tags,
  summary: "Create a learning path (draft, without courses)",
  request: jsonBody(s.CreatePathBody),
  responses: { 201: okResponse(s.PathDetail) },
});

pathRoutes.openapi(createRoute, async (c) => ok(c, await createPath(tenantCtx(c), { body: c.req.valid("json") }), 201));

const getRoute = defineRoute({
  method: "get",
  path: "/t/learning-paths/{id}",
  gate: gates.member,
  tags,
  summary: "A learning path with its ordered courses (students: a published path and its published courses)",
  request: { params: IdParams },
  failures: [e.PATH_NOT_FOUND],
  responses: { 200: okResponse(s.PathDetail) },
});

pathRoutes.openapi(getRoute, async (c) => ok(c, await getPath(tenantCtx(c), { id: c.req.valid("param").id })));

const updateRoute = defineRoute({
  method: "patch",
  path: "/t/learning-paths/{id}",
  ...manageCourses,
  tags,
  summary: "Edit a learning path's title and description",
  request: { params: IdParams, ...jsonBody(s.UpdatePathBody) },
  failures: [e.PATH_NOT_FOUND],
  responses: { 200: okResponse(s.PathDetail) },
});

pathRoutes.openapi(updateRoute, async (c) => ok(c, await updatePath(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));

const deleteRoute = defineRoute({
  method: "delete",
  path: "/t/learning-paths/{id}",
  ...manageCourses,
  tags,
  summary: "Delete a learning path (soft); its courses stay",
  request: { params: IdParams },
  failures: [e.PATH_NOT_FOUND],
  responses: { 200: okResponse(DeletedResult) },
});

pathRoutes.openapi(deleteRoute, async (c) => ok(c, await deletePath(tenantCtx(c), { id: c.req.valid("param").id })));

const publishRoute = defineRoute({
  method: "post",
  path: "/t/learning-paths/{id}/publish",
  ...manageCourses,
  tags,
  summary: "Publish a learning path that has at least one course (idempotent)",
  request: { params: IdParams },
  failures: [e.PATH_NOT_FOUND, e.PATH_PUBLISH_EMPTY],
  responses: { 200: okResponse(s.PublishedResult) },
});

pathRoutes.openapi(publishRoute, async (c) => ok(c, await publishPath(tenantCtx(c), { id: c.req.valid("param").id })));

const unpublishRoute = defineRoute({
  method: "post",
  path: "/t/learning-paths/{id}/unpublish",
  ...manageCourses,
  tags,
  summary: "Take a learning path back to draft (idempotent)",
  request: { params: IdParams },
  failures: [e.PATH_NOT_FOUND],
  responses: { 200: okResponse(s.UnpublishedResult) },
});

pathRoutes.openapi(unpublishRoute, async (c) => ok(c, await unpublishPath(tenantCtx(c), { id: c.req.valid("param").id })));

const replaceCoursesRoute = defineRoute({
  method: "patch",
  path: "/t/learning-paths/{id}/courses",
  ...manageCourses,
  tags,
  summary: "Replace the path's whole course set (0-200 live courses, in order); students of a published path hear of each published course added",
  request: { params: IdParams, ...jsonBody(s.ReplaceCoursesBody) },
  failures: [e.PATH_NOT_FOUND, e.COURSE_NOT_IN_TENANT, e.COURSE_ALREADY_IN_PATH],
  responses: { 200: okResponse(s.ReplaceCoursesResult) },
});

pathRoutes.openapi(replaceCoursesRoute, async (c) =>
  ok(c, await replacePathCourses(tenantCtx(c), { id: c.req.valid("param").id, courseIds: c.req.valid("json").course_ids })),
);

const reorderCoursesRoute = defineRoute({
  method: "patch",
  path: "/t/learning-paths/{id}/reorder-courses",
  ...manageCourses,
  tags,
  summary: "Reorder the path's courses: every course of the path exactly once, in the new order",
  request: { params: IdParams, ...jsonBody(s.ReorderCoursesBody) },
  failures: [e.PATH_NOT_FOUND, orderingErrors.REORDER_DUPLICATE, orderingErrors.REORDER_INCOMPLETE],
  responses: { 200: okResponse(s.ReorderedResult) },
});

pathRoutes.openapi(reorderCoursesRoute, async (c) =>
  ok(c, await reorderPathCourses(tenantCtx(c), { id: c.req.valid("param").id, courseIds: c.req.valid("json").course_ids })),
);

const studentsRoute = defineRoute({
  method: "get",
  path: "/t/learning-paths/{id}/students",
  ...manageCourses,
  tags,
  summary: "The path's registry: students enrolled in any of its courses, with their progress along it; restricted curators see their own students",
  request: { params: IdParams, query: s.PathStudentsQuery },
  failures: [e.PATH_NOT_FOUND],
  responses: { 200: okResponse(s.PathStudentList) },
});

pathRoutes.openapi(studentsRoute, async (c) => ok(c, await pathStudents(tenantCtx(c), { id: c.req.valid("param").id, query: c.req.valid("query") })));

const myPathsRoute = defineRoute({
  method: "get",
  path: "/t/students/me/paths",
  gate: gates.member,
  tags,
  summary: "Every published learning path with your status in each course (locked, unlocked, completed), by title",
  responses: { 200: okResponse(s.MyPaths) },
});

pathRoutes.openapi(myPathsRoute, async (c) => ok(c, await myPaths(tenantCtx(c))));
