import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { orderingErrors } from "../../../core/http/reorder";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import * as s from "../block-schemas";
import { createBlock, deleteBlock, reorderBlocks, updateBlock } from "../block-service";
import { completeBlock, myCompletions } from "../completion-service";
import { coursesErrors as e } from "../errors";
import { getBlock, getLesson, listLessonBlocks } from "../lesson-content";

/** Blocks: authoring, the content reads (lesson and block), and completion. */
export const blockRoutes = createArea();

const tags = ["Course content"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "forbidden" } as const;
const member = { gate: gates.member } as const;
const blockParam = { errors: { param: "invalid_block_id" } } as const;

const createBlockRoute = defineRoute({
  method: "post",
  path: "/t/lessons/{id}/blocks",
  ...manageCourses,
  tags,
  summary: "Add a block to a lesson (appended, or inserted at `position`); the payload is validated for its type",
  request: { params: IdParams, ...jsonBody(s.CreateBlockBody) },
  failures: [e.INVALID_BLOCK_TYPE, e.INVALID_BLOCK_PAYLOAD, e.BLOCK_REF_NOT_FOUND, e.LESSON_NOT_FOUND],
  responses: { 201: okResponse(s.FullBlock) },
});
blockRoutes.openapi(createBlockRoute, async (c) =>
  ok(c, await createBlock(tenantCtx(c), { lessonId: c.req.valid("param").id, body: c.req.valid("json") }), 201),
);

const listBlocksRoute = defineRoute({
  method: "get",
  path: "/t/lessons/{id}/blocks",
  ...member,
  tags,
  summary: "A lesson's full blocks (students: enrolled, visible lesson; locked blocks without payload); records a student's resume point",
  request: { params: IdParams },
  failures: [e.LESSON_NOT_FOUND],
  responses: { 200: okResponse(s.BlockList) },
});
blockRoutes.openapi(listBlocksRoute, async (c) => ok(c, await listLessonBlocks(tenantCtx(c), { id: c.req.valid("param").id })));

const getLessonRoute = defineRoute({
  method: "get",
  path: "/t/lessons/{id}",
  ...member,
  tags,
  summary: "A lesson with its full blocks (students: enrolled, visible lesson); records a student's resume point",
  request: { params: IdParams },
  failures: [e.LESSON_NOT_FOUND],
  responses: { 200: okResponse(s.LessonWithBlocks) },
});
blockRoutes.openapi(getLessonRoute, async (c) => ok(c, await getLesson(tenantCtx(c), { id: c.req.valid("param").id })));

const reorderBlocksRoute = defineRoute({
  method: "patch",
  path: "/t/lessons/{id}/reorder-blocks",
  ...manageCourses,
  tags,
  summary: "Reorder a lesson's blocks (the exact set of its live blocks)",
  request: { params: IdParams, ...jsonBody(s.ReorderBlocksBody) },
  failures: [orderingErrors.REORDER_DUPLICATE, orderingErrors.REORDER_INCOMPLETE, e.LESSON_NOT_FOUND],
  responses: { 200: okResponse(s.Reordered) },
});
blockRoutes.openapi(reorderBlocksRoute, async (c) =>
  ok(c, await reorderBlocks(tenantCtx(c), { lessonId: c.req.valid("param").id, body: c.req.valid("json") })),
);

const getBlockRoute = defineRoute({
  method: "get",
  path: "/t/blocks/{id}",
  ...member,
  ...blockParam,
  tags,
  summary: "A full block; a student's block behind an incomplete earlier block of a sequential course is 409; records a student's resume point",
  request: { params: IdParams },
  failures: [e.BLOCK_NOT_FOUND, e.SEQUENTIAL_ORDER_REQUIRED],
  responses: { 200: okResponse(s.FullBlock) },
});
blockRoutes.openapi(getBlockRoute, async (c) => ok(c, await getBlock(tenantCtx(c), { id: c.req.valid("param").id })));

const updateBlockRoute = defineRoute({
  method: "patch",
  path: "/t/blocks/{id}",
  ...manageCourses,
  ...blockParam,
  tags,
  summary: "Replace a block's payload (its type never changes)",
  request: { params: IdParams, ...jsonBody(s.UpdateBlockBody) },
  failures: [e.INVALID_BLOCK_PAYLOAD, e.BLOCK_TYPE_IMMUTABLE, e.BLOCK_REF_NOT_FOUND, e.BLOCK_NOT_FOUND],
  responses: { 200: okResponse(s.FullBlock) },
});
blockRoutes.openapi(updateBlockRoute, async (c) => ok(c, await updateBlock(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));

const deleteBlockRoute = defineRoute({
  method: "delete",
  path: "/t/blocks/{id}",
  ...manageCourses,
  ...blockParam,
  tags,
  summary: "Delete a block (soft; students' completions of it stop counting)",
  request: { params: IdParams },
  failures: [e.BLOCK_NOT_FOUND],
  responses: { 204: { description: "Deleted" } },
});
blockRoutes.openapi(deleteBlockRoute, async (c) => {
  await deleteBlock(tenantCtx(c), { id: c.req.valid("param").id });
  return c.body(null, 204);
});

const completeBlockRoute = defineRoute({
  method: "post",
  path: "/t/blocks/{id}/complete",
  gate: gates.student(),
  ...blockParam,
  tags,
  summary: "Mark a block complete (manual types; an assignment block once submitted); idempotent",
  request: { params: IdParams },
  failures: [e.BLOCK_TYPE_COMPLETED_VIA_DOMAIN, e.BLOCK_NOT_FOUND, e.SEQUENTIAL_ORDER_REQUIRED, e.ASSIGNMENT_NOT_SUBMITTED],
  responses: { 200: okResponse(s.CompletionResult) },
});
blockRoutes.openapi(completeBlockRoute, async (c) => ok(c, await completeBlock(tenantCtx(c), { id: c.req.valid("param").id })));

const myCompletionsRoute = defineRoute({
  method: "get",
  path: "/t/courses/{id}/my-completions",
  ...member,
  errors: { param: "invalid_course_id" },
  tags,
  summary: "The ids of the caller's completed blocks in a course they are actively enrolled in",
  request: { params: IdParams },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.MyCompletions) },
});
blockRoutes.openapi(myCompletionsRoute, async (c) => ok(c, await myCompletions(tenantCtx(c), { id: c.req.valid("param").id })));
