import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { coreErrors } from "../../../core/http/errors";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { groupsErrors as e } from "../errors";
import * as s from "../member-schemas";
import { addMembers, listMembers, removeMembers } from "../member-service";

export const membersRoutes = createArea();

const tags = ["Groups"];
const manageGroups = { gate: gates.permission("can_manage_groups"), deny: "permission_denied" } as const;

const listRoute = defineRoute({
  method: "get",
  path: "/t/groups/{id}/members",
  gate: gates.member,
  tags,
  summary: "A page of the group's members (live students) by last name, first name; students get 404",
  request: { params: s.GroupIdParams, query: s.ListMembersQuery },
  failures: [e.GROUP_NOT_FOUND],
  responses: { 200: okResponse(s.GroupMemberList) },
});

membersRoutes.openapi(listRoute, async (c) => ok(c, await listMembers(tenantCtx(c), { groupId: c.req.valid("param").id, query: c.req.valid("query") })));

const addRoute = defineRoute({
  method: "post",
  path: "/t/groups/{id}/members",
  audit: { actions: ["group.member_added"] },
  ...manageGroups,
  tags,
  summary: "Add up to 500 students; always 200 with who was added and why the rest was skipped. New members get the group's access to its courses",
  request: { params: s.GroupIdParams, ...jsonBody(s.AddMembersBody) },
  failures: [e.EMPTY_MEMBER_LIST, e.TOO_MANY_MEMBERS, coreErrors.INVALID_REQUEST_BODY, e.GROUP_NOT_FOUND, e.CROSS_TENANT_STUDENT],
  responses: { 200: okResponse(s.AddMembersResult) },
});

membersRoutes.openapi(addRoute, async (c) =>
  ok(c, await addMembers(tenantCtx(c), { groupId: c.req.valid("param").id, studentIds: c.req.valid("json").student_ids })),
);

const removeRoute = defineRoute({
  method: "delete",
  path: "/t/groups/{id}/members",
  audit: { actions: ["group.member_removed"] },
  ...manageGroups,
  tags,
  summary: "Remove up to 500 members, all or nothing; only this group's access to its courses goes (other sources and progress stay)",
  request: { params: s.GroupIdParams, ...jsonBody(s.RemoveMembersBody) },
  failures: [e.EMPTY_MEMBER_LIST, e.TOO_MANY_MEMBERS, coreErrors.INVALID_REQUEST_BODY, e.GROUP_NOT_FOUND, e.MEMBER_NOT_FOUND],
  responses: { 200: okResponse(s.RemoveMembersResult) },
});

membersRoutes.openapi(removeRoute, async (c) =>
  ok(c, await removeMembers(tenantCtx(c), { groupId: c.req.valid("param").id, studentIds: c.req.valid("json").student_ids })),
);
