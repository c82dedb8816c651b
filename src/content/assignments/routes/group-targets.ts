import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { optionalJsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { groupsErrors } from "../../groups/errors";
import { assignmentsErrors as e } from "../errors";
import * as s from "../schemas";
import { getGroupTargets, putGroupTargets } from "../target-service";

/** The groups an assignment is set for. */
export const groupTargetRoutesPart = createArea();

const tags = ["Assignments"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "permission_denied" } as const;

const getTargetsRoute = defineRoute({
  method: "get",
  path: "/t/assignments/{id}/group-targets",
  ...manageCourses,
  tags,
  summary: "The groups the assignment is set for (empty: open to every student of the school)",
  request: { params: IdParams },
  failures: [e.ASSIGNMENT_NOT_FOUND],
  responses: { 200: okResponse(s.GroupTargets) },
});

groupTargetRoutesPart.openapi(getTargetsRoute, async (c) => ok(c, await getGroupTargets(tenantCtx(c), { id: c.req.valid("param").id })));

const putTargetsRoute = defineRoute({
  method: "put",
  path: "/t/assignments/{id}/group-targets",
  ...manageCourses,
  tags,
  summary: "Replace the groups the assignment is set for; the members of each newly added group are told (assignment.assigned)",
  request: { params: IdParams, ...optionalJsonBody(s.PutGroupTargetsBody) },
  failures: [e.ASSIGNMENT_NOT_FOUND, groupsErrors.GROUP_NOT_FOUND],
  responses: { 200: okResponse(s.GroupTargets) },
});

groupTargetRoutesPart.openapi(putTargetsRoute, async (c) => ok(c, await putGroupTargets(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));
