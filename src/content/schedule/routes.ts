import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import type { WindowLevel } from "../../db/schema";
import { scheduleErrors as e } from "./errors";
import { clearGroupWindow, getGroupGrid, getScheduleTree, putGroupWindow } from "./group-grid-service";
import * as s from "./schemas";
import { defaultNode } from "./targets";
import { clearWindow, getWindow, putWindow } from "./window-service";

export const scheduleRoutes = createArea();

const tags = ["Course schedule"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "forbidden" } as const;

/** GET, PUT and DELETE of one level's window in the default grid (`/courses|modules|lessons/:id/schedule`). */
function nodeRoutes(level: WindowLevel, segment: "courses" | "modules" | "lessons") {
  const path = `/t/${segment}/{id}/schedule`;
  const getRoute = defineRoute({
    method: "get",
    path,
    ...manageCourses,
    tags,
    summary: `The ${level}'s window in the default grid (null when unset)`,
    request: { params: IdParams },
    failures: [e.TARGET_NOT_FOUND],
    responses: { 200: okResponse(s.WindowAnswer) },
  });
  scheduleRoutes.openapi(getRoute, async (c) => ok(c, await getWindow(tenantCtx(c), { node: defaultNode(level, c.req.valid("param").id) })));

  const putRoute = defineRoute({
    method: "put",
    path,
    ...manageCourses,
    tags,
    summary:
      level === "lesson"
        ? "Set the lesson's window in the default grid (its module needs a window there first); repeating it changes nothing"
        : `Set the ${level}'s window in the default grid; repeating it changes nothing`,
    request: { params: IdParams, ...jsonBody(s.WindowBody) },
    failures: [e.NO_BOUNDS, e.INVERTED, e.TARGET_NOT_FOUND, ...(level === "lesson" ? [e.MODULE_SCHEDULE_REQUIRED] : [])],
    responses: { 200: okResponse(s.WindowAnswer) },
  });
  scheduleRoutes.openapi(putRoute, async (c) =>
    ok(c, await putWindow(tenantCtx(c), { node: defaultNode(level, c.req.valid("param").id), window: c.req.valid("json") })),
  );

  const deleteRoute = defineRoute({
    method: "delete",
    path,
    ...manageCourses,
    tags,
    summary:
      level === "module"
        ? "Clear the module's window in the default grid, with its lessons' windows there (soft)"
        : `Clear the ${level}'s window in the default grid (soft)`,
    request: { params: IdParams },
    failures: [e.TARGET_NOT_FOUND, e.WINDOW_NOT_FOUND],
    responses: { 200: okResponse(s.ClearedAnswer) },
  });
  scheduleRoutes.openapi(deleteRoute, async (c) => ok(c, await clearWindow(tenantCtx(c), { node: defaultNode(level, c.req.valid("param").id) })));
}

nodeRoutes("course", "courses");
nodeRoutes("module", "modules");
nodeRoutes("lesson", "lessons");

const treeRoute = defineRoute({
  method: "get",
  path: "/t/courses/{id}/schedule-tree",
  ...manageCourses,
  tags,
  summary: "Every window of the course's default grid, in course order",
  request: { params: IdParams },
  failures: [e.TARGET_NOT_FOUND],
  responses: { 200: okResponse(s.GridAnswer) },
});

scheduleRoutes.openapi(treeRoute, async (c) => ok(c, await getScheduleTree(tenantCtx(c), { courseId: c.req.valid("param").id })));

const groupGridRoute = defineRoute({
  method: "get",
  path: "/t/groups/{id}/course-schedule",
  ...manageCourses,
  errors: { query: "invalid_id_format" },
  tags,
  summary: "The group's grid of a course: the windows that replace the default grid for the group's members",
  request: { params: IdParams, query: s.GroupGridQuery },
  failures: [e.TARGET_NOT_FOUND],
  responses: { 200: okResponse(s.GridAnswer) },
});

scheduleRoutes.openapi(groupGridRoute, async (c) =>
  ok(c, await getGroupGrid(tenantCtx(c), { groupId: c.req.valid("param").id, courseId: c.req.valid("query").course_id })),
);

const putGroupRoute = defineRoute({
  method: "put",
  path: "/t/groups/{id}/course-schedule",
  ...manageCourses,
  tags,
  audit: { none: "course authoring (a group's schedule grid), which 05 section 6 does not list; the course areas are not audited" },
  summary: "Set a window in the group's grid of a course (a lesson's module needs a window in this grid first)",
  request: { params: IdParams, ...jsonBody(s.GroupGridPutBody) },
  failures: [e.NO_BOUNDS, e.INVERTED, e.TARGET_NOT_FOUND, e.MODULE_SCHEDULE_REQUIRED],
  responses: { 200: okResponse(s.WindowAnswer) },
});

scheduleRoutes.openapi(putGroupRoute, async (c) => ok(c, await putGroupWindow(tenantCtx(c), { groupId: c.req.valid("param").id, body: c.req.valid("json") })));

const clearGroupRoute = defineRoute({
  method: "delete",
  path: "/t/groups/{id}/course-schedule",
  ...manageCourses,
  tags,
  audit: { none: "course authoring (a group's schedule grid), which 05 section 6 does not list; the course areas are not audited" },
  summary: "Clear a window in the group's grid of a course (a module's takes its lessons' windows along)",
  request: { params: IdParams, ...jsonBody(s.GroupGridDeleteBody) },
  failures: [e.TARGET_NOT_FOUND, e.WINDOW_NOT_FOUND],
  responses: { 200: okResponse(s.ClearedAnswer) },
});

scheduleRoutes.openapi(clearGroupRoute, async (c) => ok(c, await clearGroupWindow(tenantCtx(c), { groupId: c.req.valid("param").id, body: c.req.valid("json") })));
