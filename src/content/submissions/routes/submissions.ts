import { createArea } from "../../../core/http/area";
import { okResponse, ok } from "../../../core/http/envelope";
import { IdParams } from "../../../core/http/pagination";
import { gates } from "../../../core/http/gates";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { assignmentsErrors as e } from "../../assignments/errors";
import { getSubmission } from "../read";
import { SubmissionObject } from "../schemas";

/** One submission, read by its owner or a manager of students in scope. */
export const submissionRoutesPart = createArea();

const getSubmissionRoute = defineRoute({
  method: "get",
  path: "/t/submissions/{id}",
  gate: gates.member,
  tags: ["Submissions"],
  summary: "One submission with its files (its student, or a curator or admin who manages the student)",
  request: { params: IdParams },
  failures: [e.SUBMISSION_NOT_FOUND],
  responses: { 200: okResponse(SubmissionObject) },
});

submissionRoutesPart.openapi(getSubmissionRoute, async (c) => ok(c, await getSubmission(tenantCtx(c), { id: c.req.valid("param").id })));
