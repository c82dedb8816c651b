import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { assignmentsErrors as e } from "../../assignments/errors";
import { submissionHistory } from "../read";
import { reopenSubmission, reviewSubmission } from "../review-service";
import * as s from "../schemas";
import { listSubmissions } from "../worksheet";

/** The curators' side: the worksheet, the attempt history, review and reopen. */
export const reviewRoutesPart = createArea();

const tags = ["Submissions"];
const manageStudents = { gate: gates.permission("can_manage_students"), deny: "forbidden" } as const;

// Declared before anything under /t/assignments/{id}/submissions that could take "history" as a parameter.
const historyRoute = defineRoute({
  method: "get",
  path: "/t/assignments/{id}/submissions/history",
  gate: gates.member,
  tags,
  summary: "Every attempt of one student at the assignment, newest first (the caller's own; managers of students pass student_id)",
  request: { params: IdParams, query: s.HistoryQuery },
  responses: { 200: okResponse(s.SubmissionHistory) },
});

reviewRoutesPart.openapi(historyRoute, async (c) =>
  ok(c, await submissionHistory(tenantCtx(c), { assignmentId: c.req.valid("param").id, query: c.req.valid("query") })),
);

const worksheetRoute = defineRoute({
  method: "get",
  path: "/t/assignments/{id}/submissions",
  gate: gates.member,
  tags,
  summary: "Managers of students: the worksheet, each student's latest attempt (a restricted curator's own students); anyone else: their own latest",
  request: { params: IdParams, query: s.WorksheetQuery },
  responses: { 200: okResponse(s.SubmissionList) },
});

reviewRoutesPart.openapi(worksheetRoute, async (c) =>
  ok(c, await listSubmissions(tenantCtx(c), { assignmentId: c.req.valid("param").id, query: c.req.valid("query") })),
);

const reviewRoute = defineRoute({
  method: "post",
  path: "/t/submissions/{id}/review",
  audit: { actions: ["submission.reviewed"] },
  ...manageStudents,
  tags,
  summary: "Accept (with a score) or reject a submitted submission",
  request: { params: IdParams, ...jsonBody(s.ReviewSubmissionBody) },
  failures: [e.SUBMISSION_NOT_FOUND, e.INVALID_SCORE, e.SUBMISSION_NOT_SUBMITTED],
  responses: { 200: okResponse(s.SubmissionObject) },
});

reviewRoutesPart.openapi(reviewRoute, async (c) => ok(c, await reviewSubmission(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));

const reopenRoute = defineRoute({
  method: "post",
  path: "/t/submissions/{id}/reopen",
  audit: { actions: ["submission.reopened"] },
  ...manageStudents,
  tags,
  summary: "Send a submitted or rejected submission back to draft (same attempt, feedback kept) so the student can change it",
  request: { params: IdParams },
  failures: [e.SUBMISSION_NOT_FOUND, e.SUBMISSION_ALREADY_ACCEPTED, e.SUBMISSION_NOT_SUBMITTED],
  responses: { 200: okResponse(s.SubmissionObject) },
});

reviewRoutesPart.openapi(reopenRoute, async (c) => ok(c, await reopenSubmission(tenantCtx(c), { id: c.req.valid("param").id })));
