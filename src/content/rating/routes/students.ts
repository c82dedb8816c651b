import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { coreErrors } from "../../../core/http/errors";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { ratingErrors as e } from "../errors";
import { StudentEvents, StudentEventsQuery, StudentSummary } from "../read-schemas";
import { getStudentSummary, listStudentEvents } from "../student-service";

/**
 * A student's standing and point history. Any member may call: an admin, an unrestricted curator,
 * the restricted curator in charge or the student themself read it; anyone else gets the same 404
 * `student_not_found` as for a missing or foreign id.
 */
export const studentsRoutesPart = createArea();

const tags = ["Rating"];
const ownerOrScope = { gate: gates.member, errors: { param: "invalid_id" } } as const;

const summaryRoute = defineRoute({
  method: "get",
  path: "/t/admin/rating/students/{id}/summary",
  ...ownerOrScope,
  tags,
  summary: "A student's school rank and total and their rank in each of their groups (by school totals among active students)",
  request: { params: IdParams },
  failures: [e.STUDENT_NOT_FOUND],
  responses: { 200: okResponse(StudentSummary) },
});

studentsRoutesPart.openapi(summaryRoute, async (c) => ok(c, await getStudentSummary(tenantCtx(c), { id: c.req.valid("param").id })));

const eventsRoute = defineRoute({
  method: "get",
  path: "/t/admin/rating/students/{id}/events",
  ...ownerOrScope,
  tags,
  summary: "A student's point events, newest first, filtered by source type, time window, sign and reason, paged",
  request: { params: IdParams, query: StudentEventsQuery },
  failures: [e.INVALID_TIME, e.INVALID_SIGN, coreErrors.INVALID_PARAMS, e.STUDENT_NOT_FOUND],
  responses: { 200: okResponse(StudentEvents) },
});

studentsRoutesPart.openapi(eventsRoute, async (c) =>
  ok(c, await listStudentEvents(tenantCtx(c), { id: c.req.valid("param").id, query: c.req.valid("query") })),
);
