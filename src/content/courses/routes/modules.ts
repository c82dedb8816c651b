import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody, optionalJsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { orderingErrors } from "../../../core/http/reorder";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { coursesErrors as e } from "../errors";
import { getModule, getModuleIndex } from "../module-index";
import { createModule, deleteModule, duplicateModule, reorderModules, setModuleCover, updateModule } from "../module-service";
import * as s from "../tree-schemas";

export const moduleRoutes = createArea();

const tags = ["Modules"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "forbidden" } as const;
const member = { gate: gates.member } as const;

const createModuleRoute = defineRoute({
  method: "post",
  path: "/t/courses/{id}/modules",
  ...manageCourses,
  tags,
  summary: "Add a module at the end of the course",
  request: { params: IdParams, ...jsonBody(s.CreateModuleBody) },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 201: okResponse(s.ModuleObject) },
});

moduleRoutes.openapi(createModuleRoute, async (c) =>
  ok(c, await createModule(tenantCtx(c), { courseId: c.req.valid("param").id, body: c.req.valid("json") }), 201),
);

const moduleIndexRoute = defineRoute({
  method: "get",
  path: "/t/courses/{id}/modules",
  ...member,
  tags,
  summary: "The module index: modules in order with their lessons (passed) and light blocks; a student sees the lessons their groups open, locked blocks without payload",
  request: { params: IdParams },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.ModuleIndex) },
});

moduleRoutes.openapi(moduleIndexRoute, async (c) => ok(c, await getModuleIndex(tenantCtx(c), { courseId: c.req.valid("param").id })));

const getModuleRoute = defineRoute({
  method: "get",
  path: "/t/modules/{id}",
  ...member,
  tags,
  summary: "One module with its lessons, as in the module index",
  request: { params: IdParams },
  failures: [e.MODULE_NOT_FOUND],
  responses: { 200: okResponse(s.ModuleObject) },
});

moduleRoutes.openapi(getModuleRoute, async (c) => ok(c, await getModule(tenantCtx(c), { id: c.req.valid("param").id })));

const updateModuleRoute = defineRoute({
  method: "patch",
  path: "/t/modules/{id}",
  ...manageCourses,
  tags,
  summary: "Change a module's title or description",
  request: { params: IdParams, ...optionalJsonBody(s.UpdateModuleBody) },
  failures: [e.MODULE_NOT_FOUND],
  responses: { 200: okResponse(s.ModuleObject) },
});

moduleRoutes.openapi(updateModuleRoute, async (c) =>
  ok(c, await updateModule(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })),
);

const deleteModuleRoute = defineRoute({
  method: "delete",
  path: "/t/modules/{id}",
  ...manageCourses,
  tags,
  summary: "Delete a module with its lessons and blocks (soft); enrollments' progress is recounted",
  request: { params: IdParams },
  failures: [e.MODULE_NOT_FOUND],
  responses: { 204: { description: "Deleted" } },
});

moduleRoutes.openapi(deleteModuleRoute, async (c) => {
  await deleteModule(tenantCtx(c), { id: c.req.valid("param").id });
  return c.body(null, 204);
});

const duplicateModuleRoute = defineRoute({
  method: "post",
  path: "/t/modules/{id}/duplicate",
  ...manageCourses,
  tags,
  summary: "Copy a module with its lessons, blocks and lesson groups to the end of the same course, titled `<title> (copy)`",
  request: { params: IdParams },
  failures: [e.MODULE_NOT_FOUND],
  responses: { 201: okResponse(s.ModuleObject) },
});

moduleRoutes.openapi(duplicateModuleRoute, async (c) => ok(c, await duplicateModule(tenantCtx(c), { id: c.req.valid("param").id }), 201));

const reorderModulesRoute = defineRoute({
  method: "patch",
  path: "/t/courses/{id}/reorder-modules",
  ...manageCourses,
  tags,
  summary: "Put the course's modules in a new order (every live module exactly once)",
  request: { params: IdParams, ...jsonBody(s.ReorderModulesBody) },
  failures: [orderingErrors.REORDER_DUPLICATE, orderingErrors.REORDER_INCOMPLETE, e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.ModulesReordered) },
});

moduleRoutes.openapi(reorderModulesRoute, async (c) =>
  ok(c, await reorderModules(tenantCtx(c), { courseId: c.req.valid("param").id, ids: c.req.valid("json").module_ids })),
);

const moduleCoverRoute = defineRoute({
  method: "patch",
  path: "/t/modules/{id}/cover-image",
  ...manageCourses,
  tags,
  summary: "Set or remove (null) the module's cover image",
  request: { params: IdParams, ...jsonBody(s.CoverImageBody) },
  failures: [e.INVALID_COVER_IMAGE, e.MODULE_NOT_FOUND],
  responses: { 200: okResponse(s.CoverImageResult) },
});

moduleRoutes.openapi(moduleCoverRoute, async (c) =>
  ok(c, await setModuleCover(tenantCtx(c), { id: c.req.valid("param").id, coverImageId: c.req.valid("json").cover_image_id })),
);
