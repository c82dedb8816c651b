import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { DeletedResult, jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
// Registers the exams' links with quizzes, the course tree's exam_ref blocks and the campaign picker.
import "../audience-options";
import { examsErrors as e } from "../errors";
import { getExam, listExams } from "../exam-read";
import { createExam, deleteExam, publishExam, unpublishExam, updateExam } from "../exam-service";
import "../quiz-links";
import * as s from "../schemas";

export const examRoutesPart = createArea();

const tags = ["Exams"];
const manageExams = { gate: gates.permission("can_manage_exams"), deny: "forbidden" } as const;

const listExamsRoute = defineRoute({
  method: "get",
  path: "/t/exams",
  gate: gates.member,
  tags,
  summary: "List exams, newest first, with their section count (students: published exams only)",
  request: { query: s.ListExamsQuery },
  failures: [e.INVALID_STATUS],
  responses: { 200: okResponse(s.ExamList) },
});

examRoutesPart.openapi(listExamsRoute, async (c) => ok(c, await listExams(tenantCtx(c), { query: c.req.valid("query") })));

const createExamRoute = defineRoute({
  method: "post",
  path: "/t/exams",
  ...manageExams,
  tags,
  summary: "Create an exam (a draft without sections; add them with POST /exams/:id/sections)",
  request: jsonBody(s.CreateExamBody),
  responses: { 201: okResponse(s.ExamObject) },
});

examRoutesPart.openapi(createExamRoute, async (c) => ok(c, await createExam(tenantCtx(c), { body: c.req.valid("json") }), 201));

const getExamRoute = defineRoute({
  method: "get",
  path: "/t/exams/{id}",
  gate: gates.member,
  tags,
  summary: "One exam with its sections (students: a published exam, with their result, attempt in progress and attempt count)",
  request: { params: IdParams },
  failures: [e.EXAM_NOT_FOUND],
  responses: { 200: okResponse(s.ExamObject) },
});

examRoutesPart.openapi(getExamRoute, async (c) => ok(c, await getExam(tenantCtx(c), { id: c.req.valid("param").id })));

const updateExamRoute = defineRoute({
  method: "patch",
  path: "/t/exams/{id}",
  ...manageExams,
  tags,
  summary: "Change an exam's settings; a published exam keeps its time limit, passing score, max attempts and retake policy",
  request: { params: IdParams, ...jsonBody(s.UpdateExamBody) },
  failures: [e.EXAM_NOT_FOUND, e.EXAM_PUBLISHED_IMMUTABLE],
  responses: { 200: okResponse(s.ExamObject) },
});

examRoutesPart.openapi(updateExamRoute, async (c) => ok(c, await updateExam(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));

const deleteExamRoute = defineRoute({
  method: "delete",
  path: "/t/exams/{id}",
  ...manageExams,
  tags,
  summary: "Delete an exam with its sections (soft); refused while an attempt is in progress",
  request: { params: IdParams },
  failures: [e.EXAM_NOT_FOUND, e.EXAM_HAS_IN_PROGRESS_ATTEMPTS],
  responses: { 200: okResponse(DeletedResult) },
});

examRoutesPart.openapi(deleteExamRoute, async (c) => ok(c, await deleteExam(tenantCtx(c), { id: c.req.valid("param").id })));

const publishExamRoute = defineRoute({
  method: "post",
  path: "/t/exams/{id}/publish",
  ...manageExams,
  tags,
  summary: "Publish a draft exam that has a section; the first publication tells the school's students (exam.published)",
  request: { params: IdParams },
  failures: [e.EXAM_NOT_FOUND, e.EXAM_SECTION_REQUIRED, e.EXAM_ALREADY_PUBLISHED],
  responses: { 200: okResponse(s.ExamPublished) },
});

examRoutesPart.openapi(publishExamRoute, async (c) => ok(c, await publishExam(tenantCtx(c), { id: c.req.valid("param").id })));

const unpublishExamRoute = defineRoute({
  method: "post",
  path: "/t/exams/{id}/unpublish",
  ...manageExams,
  tags,
  summary: "Put an exam back to draft (a draft answers the same); attempts in progress run on",
  request: { params: IdParams },
  failures: [e.EXAM_NOT_FOUND],
  responses: { 200: okResponse(s.ExamUnpublished) },
});

examRoutesPart.openapi(unpublishExamRoute, async (c) => ok(c, await unpublishExam(tenantCtx(c), { id: c.req.valid("param").id })));
