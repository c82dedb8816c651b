import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody, optionalJsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { orderingErrors } from "../../../core/http/reorder";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { coursesErrors as e } from "../errors";
import { getLessonGroups, replaceLessonGroups } from "../lesson-groups";
import { createLesson, deleteLesson, duplicateLesson, reorderLessons, setLessonCover, updateLesson } from "../lesson-service";
import { listModuleLessons } from "../module-index";
import * as s from "../tree-schemas";

export const lessonRoutes = createArea();

const tags = ["Lessons"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "forbidden" } as const;

const createLessonRoute = defineRoute({
  method: "post",
  path: "/t/modules/{id}/lessons",
  ...manageCourses,
  tags,
  summary: "Add a lesson at the end of the module",
  request: { params: IdParams, ...jsonBody(s.CreateLessonBody) },
  failures: [e.MODULE_NOT_FOUND],
  responses: { 201: okResponse(s.LessonObject) },
});

lessonRoutes.openapi(createLessonRoute, async (c) =>
  ok(c, await createLesson(tenantCtx(c), { moduleId: c.req.valid("param").id, body: c.req.valid("json") }), 201),
);

const moduleLessonsRoute = defineRoute({
  method: "get",
  path: "/t/modules/{id}/lessons",
  gate: gates.member,
  tags,
  summary: "The module's lessons in order, as in the module index (a student sees the lessons their groups open)",
  request: { params: IdParams },
  failures: [e.MODULE_NOT_FOUND],
  responses: { 200: okResponse(s.LessonList) },
});

lessonRoutes.openapi(moduleLessonsRoute, async (c) => ok(c, await listModuleLessons(tenantCtx(c), { id: c.req.valid("param").id })));

const updateLessonRoute = defineRoute({
  method: "patch",
  path: "/t/lessons/{id}",
  ...manageCourses,
  tags,
  summary: "Change a lesson's title or screenshot protection",
  request: { params: IdParams, ...optionalJsonBody(s.UpdateLessonBody) },
  failures: [e.LESSON_NOT_FOUND],
  responses: { 200: okResponse(s.LessonObject) },
});

lessonRoutes.openapi(updateLessonRoute, async (c) =>
  ok(c, await updateLesson(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })),
);

const deleteLessonRoute = defineRoute({
  method: "delete",
  path: "/t/lessons/{id}",
  ...manageCourses,
  tags,
  summary: "Delete a lesson with its blocks (soft); enrollments' progress is recounted",
  request: { params: IdParams },
  failures: [e.LESSON_NOT_FOUND],
  responses: { 204: { description: "Deleted" } },
});

lessonRoutes.openapi(deleteLessonRoute, async (c) => {
  await deleteLesson(tenantCtx(c), { id: c.req.valid("param").id });
  return c.body(null, 204);
});

const duplicateLessonRoute = defineRoute({
  method: "post",
  path: "/t/lessons/{id}/duplicate",
  ...manageCourses,
  tags,
  summary: "Copy a lesson with its blocks and access groups to the end of the same module, titled `<title> (copy)`",
  request: { params: IdParams },
  failures: [e.LESSON_NOT_FOUND],
  responses: { 201: okResponse(s.LessonObject) },
});

lessonRoutes.openapi(duplicateLessonRoute, async (c) => ok(c, await duplicateLesson(tenantCtx(c), { id: c.req.valid("param").id }), 201));

const reorderLessonsRoute = defineRoute({
  method: "patch",
  path: "/t/modules/{id}/reorder-lessons",
  ...manageCourses,
  tags,
  summary: "Put the module's lessons in a new order (every live lesson exactly once)",
  request: { params: IdParams, ...jsonBody(s.ReorderLessonsBody) },
  failures: [orderingErrors.REORDER_DUPLICATE, orderingErrors.REORDER_INCOMPLETE, e.MODULE_NOT_FOUND],
  responses: { 200: okResponse(s.LessonsReordered) },
});

lessonRoutes.openapi(reorderLessonsRoute, async (c) =>
  ok(c, await reorderLessons(tenantCtx(c), { moduleId: c.req.valid("param").id, ids: c.req.valid("json").lesson_ids })),
);

const lessonCoverRoute = defineRoute({
  method: "patch",
  path: "/t/lessons/{id}/cover-image",
  ...manageCourses,
  tags,
  summary: "Set or remove (null) the lesson's cover image",
  request: { params: IdParams, ...jsonBody(s.CoverImageBody) },
  failures: [e.INVALID_COVER_IMAGE, e.LESSON_NOT_FOUND],
  responses: { 200: okResponse(s.CoverImageResult) },
});

lessonRoutes.openapi(lessonCoverRoute, async (c) =>
  ok(c, await setLessonCover(tenantCtx(c), { id: c.req.valid("param").id, coverImageId: c.req.valid("json").cover_image_id })),
);

const getLessonGroupsRoute = defineRoute({
  method: "get",
  path: "/t/lessons/{id}/groups",
  ...manageCourses,
  tags,
  summary: "The lesson's access groups (live groups only; none: open to every enrolled student)",
  request: { params: IdParams },
  failures: [e.LESSON_NOT_FOUND],
  responses: { 200: okResponse(s.LessonGroups) },
});

lessonRoutes.openapi(getLessonGroupsRoute, async (c) => ok(c, await getLessonGroups(tenantCtx(c), { id: c.req.valid("param").id })));

const putLessonGroupsRoute = defineRoute({
  method: "put",
  path: "/t/lessons/{id}/groups",
  ...manageCourses,
  tags,
  summary: "Replace the lesson's access groups (0-200 live groups of the school; empty opens it to every enrolled student)",
  request: { params: IdParams, ...jsonBody(s.LessonGroupsBody) },
  failures: [e.GROUP_NOT_IN_TENANT, e.LESSON_NOT_FOUND],
  responses: { 200: okResponse(s.LessonGroups) },
});

lessonRoutes.openapi(putLessonGroupsRoute, async (c) =>
  ok(c, await replaceLessonGroups(tenantCtx(c), { id: c.req.valid("param").id, groupIds: c.req.valid("json").group_ids })),
);
