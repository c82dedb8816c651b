import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { DeletedResult, jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { orderingErrors } from "../../../core/http/reorder";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { quizzesErrors } from "../../quizzes/errors";
import { examsErrors as e } from "../errors";
import * as s from "../schemas";
import { createSection, deleteSection, reorderSections, updateSection } from "../section-service";

export const sectionRoutesPart = createArea();

const tags = ["Exams"];
const manageExams = { gate: gates.permission("can_manage_exams"), deny: "forbidden" } as const;

// Declared before the `{section_id}` routes, so `reorder` is never read as a section id.
const reorderSectionsRoute = defineRoute({
  method: "post",
  path: "/t/exams/{id}/sections/reorder",
  ...manageExams,
  tags,
  summary: "Put the exam's sections in a new order (every live section exactly once); allowed on a published exam",
  request: { params: IdParams, ...jsonBody(s.ReorderSectionsBody) },
  failures: [orderingErrors.REORDER_DUPLICATE, orderingErrors.REORDER_INCOMPLETE, e.EXAM_NOT_FOUND],
  responses: { 200: okResponse(s.SectionsReordered) },
});

sectionRoutesPart.openapi(reorderSectionsRoute, async (c) =>
  ok(c, await reorderSections(tenantCtx(c), { examId: c.req.valid("param").id, ids: c.req.valid("json").section_ids })),
);

const createSectionRoute = defineRoute({
  method: "post",
  path: "/t/exams/{id}/sections",
  ...manageExams,
  tags,
  summary: "Add a section (a quiz of the school with a weight) at the end of a draft exam",
  request: { params: IdParams, ...jsonBody(s.CreateSectionBody) },
  failures: [e.INVALID_WEIGHT, e.EXAM_NOT_FOUND, quizzesErrors.QUIZ_NOT_FOUND, e.EXAM_PUBLISHED_IMMUTABLE],
  responses: { 201: okResponse(s.SectionObject) },
});

sectionRoutesPart.openapi(createSectionRoute, async (c) =>
  ok(c, await createSection(tenantCtx(c), { examId: c.req.valid("param").id, body: c.req.valid("json") }), 201),
);

const updateSectionRoute = defineRoute({
  method: "patch",
  path: "/t/exams/{id}/sections/{section_id}",
  ...manageExams,
  tags,
  summary: "Change a section's title, quiz or weight (a published exam: the title only)",
  request: { params: s.SectionParams, ...jsonBody(s.UpdateSectionBody) },
  failures: [e.INVALID_WEIGHT, e.EXAM_NOT_FOUND, e.EXAM_SECTION_NOT_FOUND, quizzesErrors.QUIZ_NOT_FOUND, e.EXAM_PUBLISHED_IMMUTABLE],
  responses: { 200: okResponse(s.SectionObject) },
});

sectionRoutesPart.openapi(updateSectionRoute, async (c) =>
  ok(c, await updateSection(tenantCtx(c), { examId: c.req.valid("param").id, sectionId: c.req.valid("param").section_id, body: c.req.valid("json") })),
);

const deleteSectionRoute = defineRoute({
  method: "delete",
  path: "/t/exams/{id}/sections/{section_id}",
  ...manageExams,
  tags,
  summary: "Remove a section from a draft exam (soft)",
  request: { params: s.SectionParams },
  failures: [e.EXAM_NOT_FOUND, e.EXAM_SECTION_NOT_FOUND, e.EXAM_PUBLISHED_IMMUTABLE],
  responses: { 200: okResponse(DeletedResult) },
});

sectionRoutesPart.openapi(deleteSectionRoute, async (c) =>
  ok(c, await deleteSection(tenantCtx(c), { examId: c.req.valid("param").id, sectionId: c.req.valid("param").section_id })),
);
