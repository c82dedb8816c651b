import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { DeletedResult, jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { setGroupCurator } from "../curator-service";
import { groupsErrors as e } from "../errors";
import * as s from "../group-schemas";
import { createGroup, deleteGroup, getGroup, listGroups, listUserGroups, updateGroup } from "../group-service";

export const groupsRoutes = createArea();

const tags = ["Groups"];
// The contract states `permission_denied` for POST; the other manage_groups routes answer the same.
const manageGroups = { gate: gates.permission("can_manage_groups"), deny: "permission_denied" } as const;

const listGroupsRoute = defineRoute({
  method: "get",
  path: "/t/groups",
  gate: gates.member,
  tags,
  summary: "List the groups the caller sees (a restricted curator: the groups they curate; a student: their own)",
  request: { query: s.ListGroupsQuery },
  responses: { 200: okResponse(s.GroupList) },
});

groupsRoutes.openapi(listGroupsRoute, async (c) => ok(c, await listGroups(tenantCtx(c), { query: c.req.valid("query") })));

const getGroupRoute = defineRoute({
  method: "get",
  path: "/t/groups/{id}",
  gate: gates.member,
  tags,
  summary: "One group; a group the caller does not see is 404",
  request: { params: IdParams },
  failures: [e.GROUP_NOT_FOUND],
  responses: { 200: okResponse(s.Group) },
});

groupsRoutes.openapi(getGroupRoute, async (c) => ok(c, await getGroup(tenantCtx(c), { id: c.req.valid("param").id })));

const createGroupRoute = defineRoute({
  method: "post",
  path: "/t/groups",
  audit: { none: "a new group has no members yet; membership changes are recorded by the member routes" },
  ...manageGroups,
  tags,
  summary: "Create a group (the caller is its author)",
  request: jsonBody(s.CreateGroupBody),
  failures: [e.GROUP_NAME_REQUIRED, e.INVALID_LOGO],
  responses: { 201: okResponse(s.Group) },
});

groupsRoutes.openapi(createGroupRoute, async (c) => ok(c, await createGroup(tenantCtx(c), { body: c.req.valid("json") }), 201));

const updateGroupRoute = defineRoute({
  method: "patch",
  path: "/t/groups/{id}",
  audit: { none: "the group's name, description and logo: not a membership change (05 section 6 lists group membership changes)" },
  ...manageGroups,
  tags,
  summary: "Change a group's name, description or logo (an empty logo removes it)",
  request: { params: IdParams, ...jsonBody(s.UpdateGroupBody) },
  failures: [e.GROUP_NAME_REQUIRED, e.INVALID_LOGO, e.GROUP_NOT_FOUND],
  responses: { 200: okResponse(s.Group) },
});

groupsRoutes.openapi(updateGroupRoute, async (c) =>
  ok(c, await updateGroup(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })),
);

const setCuratorRoute = defineRoute({
  method: "put",
  path: "/t/groups/{id}/curator",
  audit: { none: "the group's curator: a staff assignment outside the content actions (C2 left it to the platform's curator entries)" },
  ...manageGroups,
  tags,
  summary: "Set or remove the group's curator (a live, active curator of the school)",
  request: { params: IdParams, ...jsonBody(s.SetGroupCuratorBody) },
  failures: [e.CURATOR_NOT_ELIGIBLE, e.GROUP_NOT_FOUND],
  responses: { 200: okResponse(s.Group) },
});

groupsRoutes.openapi(setCuratorRoute, async (c) =>
  ok(c, await setGroupCurator(tenantCtx(c), { id: c.req.valid("param").id, curatorId: c.req.valid("json").curator_id })),
);

const deleteGroupRoute = defineRoute({
  method: "delete",
  path: "/t/groups/{id}",
  audit: { actions: ["group.member_removed"] },
  ...manageGroups,
  tags,
  summary: "Delete a group (soft) with its memberships and curator; refused while it is enrolled in a course",
  request: { params: IdParams },
  failures: [e.GROUP_NOT_FOUND, e.GROUP_HAS_COURSE_ENROLLMENTS],
  responses: { 200: okResponse(DeletedResult) },
});

groupsRoutes.openapi(deleteGroupRoute, async (c) => ok(c, await deleteGroup(tenantCtx(c), { id: c.req.valid("param").id })));

const userGroupsRoute = defineRoute({
  method: "get",
  path: "/t/users/{id}/groups",
  gate: gates.permission("can_manage_students"),
  deny: "forbidden",
  tags,
  summary: "A student's groups, in joining order (a restricted curator: only groups they curate); an unknown or foreign id has none",
  request: { params: IdParams },
  responses: { 200: okResponse(s.UserGroups) },
});

groupsRoutes.openapi(userGroupsRoute, async (c) => ok(c, await listUserGroups(tenantCtx(c), { id: c.req.valid("param").id })));
