import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { assignmentProgress, getAssignment, listAssignments } from "../assignment-read";
import { createAssignment, deleteAssignment, updateAssignment } from "../assignment-service";
// Registers the assignment_ref blocks' rules with the course tree and the campaign picker's option kind.
import "../audience-options";
import { assignmentsErrors as e } from "../errors";
import "../refs";
import * as s from "../schemas";

export const assignmentRoutesPart = createArea();

const tags = ["Assignments"];
const manageCourses = gates.permission("can_manage_courses");

const listAssignmentsRoute = defineRoute({
  method: "get",
  path: "/t/assignments",
  gate: gates.member,
  tags,
  summary: "List assignments, newest first (students: those open to them, with their latest attempt's status and score)",
  request: { query: s.ListAssignmentsQuery },
  responses: { 200: okResponse(s.AssignmentList) },
});

assignmentRoutesPart.openapi(listAssignmentsRoute, async (c) => ok(c, await listAssignments(tenantCtx(c), { query: c.req.valid("query") })));

// Declared before /t/assignments/{id}, so "progress" is never read as an id.
const progressRoute = defineRoute({
  method: "get",
  path: "/t/assignments/progress",
  gate: gates.student(),
  deny: e.STUDENT_ONLY,
  tags,
  summary: "The student's assignment progress: assignments open to them and how many have a submission beyond draft",
  responses: { 200: okResponse(s.AssignmentProgress) },
});

assignmentRoutesPart.openapi(progressRoute, async (c) => ok(c, await assignmentProgress(tenantCtx(c))));

const getAssignmentRoute = defineRoute({
  method: "get",
  path: "/t/assignments/{id}",
  gate: gates.member,
  tags,
  summary: "One assignment with its attachments (students: one open to them)",
  request: { params: IdParams },
  failures: [e.ASSIGNMENT_NOT_FOUND],
  responses: { 200: okResponse(s.AssignmentObject) },
});

assignmentRoutesPart.openapi(getAssignmentRoute, async (c) => ok(c, await getAssignment(tenantCtx(c), { id: c.req.valid("param").id })));

const createAssignmentRoute = defineRoute({
  method: "post",
  path: "/t/assignments",
  gate: manageCourses,
  deny: "permission_denied",
  tags,
  summary: "Create an assignment (open to every student until group targets are set)",
  request: jsonBody(s.CreateAssignmentBody),
  responses: { 201: okResponse(s.AssignmentObject) },
});

assignmentRoutesPart.openapi(createAssignmentRoute, async (c) => ok(c, await createAssignment(tenantCtx(c), { body: c.req.valid("json") }), 201));

const updateAssignmentRoute = defineRoute({
  method: "patch",
  path: "/t/assignments/{id}",
  gate: manageCourses,
  deny: "permission_denied",
  tags,
  summary: "Change an assignment; fields left out stay as they are (scores already given stay when max_score changes)",
  request: { params: IdParams, ...jsonBody(s.UpdateAssignmentBody) },
  failures: [e.ASSIGNMENT_NOT_FOUND],
  responses: { 200: okResponse(s.AssignmentObject) },
});

assignmentRoutesPart.openapi(updateAssignmentRoute, async (c) =>
  ok(c, await updateAssignment(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })),
);

const deleteAssignmentRoute = defineRoute({
  method: "delete",
  path: "/t/assignments/{id}",
  gate: manageCourses,
  deny: "permission_denied",
  tags,
  summary: "Delete an assignment (soft); blocks naming it then show nothing",
  request: { params: IdParams },
  failures: [e.ASSIGNMENT_NOT_FOUND],
  responses: { 204: { description: "Deleted" } },
});

assignmentRoutesPart.openapi(deleteAssignmentRoute, async (c) => {
  await deleteAssignment(tenantCtx(c), { id: c.req.valid("param").id });
  return c.body(null, 204);
});
