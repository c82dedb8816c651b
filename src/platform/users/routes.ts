import { jsonBody, optionalJsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { requestLocale } from "../email/request-locale";
import { createArea } from "../../core/http/area";
import { errorResponses, ok, okResponse } from "../../core/http/envelope";
import { IdParams } from "../../core/http/pagination";
import { defineRoute } from "../../core/http/route";
import { getPermissions, replacePermissions } from "./permissions";
import { changeOwnPassword, getProfile, updateProfile } from "./profile-service";
import * as s from "./schemas";
import {
  assignCurator,
  bulkSetActive,
  changeRole,
  createUser,
  getUser,
  listUsers,
  permanentlyDeleteUser,
  softDeleteUser,
  updateUser,
} from "./service";

export const usersRoutes = createArea();

const tags = ["Users"];
const manageStudents = { gate: gates.permission("can_manage_students"), deny: "forbidden" } as const;
const adminOnly = { gate: gates.admin, deny: "forbidden", errors: { param: "invalid id format" } } as const;

// ---------------------------------------------------------------------------------------------
// Users of the school

const createUserRoute = defineRoute({
  method: "post",
  path: "/t/users",
  ...manageStudents,
  tags,
  summary: "Create a user; queues a welcome email with the login link (never the password). Curators create students only",
  request: jsonBody(s.CreateUserBody),
  responses: {
    201: okResponse(s.UserObject),
    ...errorResponses({ 400: ["email already taken", "invalid_request_body"] }),
  },
});

usersRoutes.openapi(createUserRoute, async (c) => {
  const ctx = c.get("services");
  const locale = requestLocale(c);
  return ok(c, await createUser(ctx, { actor: c.get("actor")!, body: c.req.valid("json"), locale }), 201);
});

const listUsersRoute = defineRoute({
  method: "get",
  path: "/t/users",
  ...manageStudents,
  errors: { query: "invalid_params" },
  tags,
  summary: "List users (a restricted curator sees only their own students)",
  request: { query: s.ListUsersQuery },
  responses: { 200: okResponse(s.UserList), ...errorResponses({ 400: "invalid_params" }) },
});

usersRoutes.openapi(listUsersRoute, async (c) => ok(c, await listUsers(c.get("services"), { actor: c.get("actor")!, query: c.req.valid("query") })));

for (const active of [true, false]) {
  const route = defineRoute({
    method: "post",
    path: active ? "/t/users/bulk-activate" : "/t/users/bulk-deactivate",
    ...manageStudents,
    errors: { body: "invalid_params" },
    tags,
    summary: active
      ? "Activate up to 100 users (idempotent)"
      : "Deactivate up to 100 users (idempotent); their sessions are revoked at once",
    request: jsonBody(s.BulkBody),
    responses: { 200: okResponse(s.BulkResult), ...errorResponses({ 400: ["invalid_params", "cannot_modify_self"] }) },
  });
  usersRoutes.openapi(route, async (c) =>
    ok(c, await bulkSetActive(c.get("services"), { actor: c.get("actor")!, ids: c.req.valid("json").ids, active })),
  );
}

const getUserRoute = defineRoute({
  method: "get",
  path: "/t/users/{id}",
  ...manageStudents,
  errors: { param: "invalid id format" },
  tags,
  summary: "One user with groups and individual curator",
  request: { params: IdParams },
  responses: {
    200: okResponse(s.UserDetail),
    ...errorResponses({ 400: "invalid id format", 404: "user_not_found" }),
  },
});

usersRoutes.openapi(getUserRoute, async (c) => ok(c, await getUser(c.get("services"), { actor: c.get("actor")!, id: c.req.valid("param").id })));

const assignCuratorRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}/curator",
  gate: gates.permission("can_manage_groups"),
  deny: "permission_denied",
  errors: { param: "invalid_id_format", body: "invalid_request_body" },
  tags,
  summary: "Assign a student's individual curator (null clears it)",
  request: { params: IdParams, ...jsonBody(s.CuratorBody) },
  responses: {
    200: okResponse(s.UserDetail),
    ...errorResponses({
      400: ["invalid_id_format", "invalid_request_body", "curator_not_eligible"],
      404: "user_not_found",
    }),
  },
});

usersRoutes.openapi(assignCuratorRoute, async (c) =>
  ok(
    c,
    await assignCurator(c.get("services"), { actor: c.get("actor")!, id: c.req.valid("param").id, curatorId: c.req.valid("json").curator_id }),
  ),
);

const updateUserRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}",
  ...adminOnly,
  tags,
  summary: "Update names, avatar or active state; deactivation revokes the user's sessions",
  request: { params: IdParams, ...optionalJsonBody(s.UpdateUserBody) },
  responses: {
    200: okResponse(s.UserObject),
    ...errorResponses({
      400: ["invalid id format", "invalid_request_body", "cannot_modify_self"],
      404: "user not found",
    }),
  },
});

usersRoutes.openapi(updateUserRoute, async (c) =>
  ok(c, await updateUser(c.get("services"), { actor: c.get("actor")!, id: c.req.valid("param").id, body: c.req.valid("json") })),
);

const deleteUserRoute = defineRoute({
  method: "delete",
  path: "/t/users/{id}",
  ...adminOnly,
  tags,
  summary: "Soft-delete a user; their sessions are revoked at once",
  request: { params: IdParams },
  responses: {
    200: okResponse(s.DeletedResult),
    ...errorResponses({ 400: ["invalid id format", "cannot delete yourself"], 404: "user not found" }),
  },
});

usersRoutes.openapi(deleteUserRoute, async (c) =>
  ok(c, await softDeleteUser(c.get("services"), { actor: c.get("actor")!, id: c.req.valid("param").id })),
);

const permanentDeleteRoute = defineRoute({
  method: "delete",
  path: "/t/users/{id}/permanent",
  ...adminOnly,
  tags,
  summary: "Delete the account and its personal data irreversibly; shared content stays without author",
  request: { params: IdParams },
  responses: {
    200: okResponse(s.PermanentlyDeletedResult),
    ...errorResponses({ 400: ["invalid id format", "user not found", "cannot delete yourself"] }),
  },
});

usersRoutes.openapi(permanentDeleteRoute, async (c) =>
  ok(c, await permanentlyDeleteUser(c.get("services"), { actor: c.get("actor")!, id: c.req.valid("param").id })),
);

const roleRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}/role",
  ...adminOnly,
  errors: { param: "invalid id format", body: "validation error" },
  tags,
  summary: "Change a user's role; becoming curator creates the default permission set if none exists",
  request: { params: IdParams, ...jsonBody(s.RoleBody) },
  responses: {
    200: okResponse(s.UserWithPermissions),
    ...errorResponses({
      400: ["invalid id format", "validation error", "cannot_modify_self"],
      404: "user not found",
    }),
  },
});

usersRoutes.openapi(roleRoute, async (c) =>
  ok(c, await changeRole(c.get("services"), { actor: c.get("actor")!, id: c.req.valid("param").id, role: c.req.valid("json").role })),
);

const getPermissionsRoute = defineRoute({
  method: "get",
  path: "/t/users/{id}/permissions",
  ...adminOnly,
  tags,
  summary: "A curator's permission set",
  request: { params: IdParams },
  responses: {
    200: okResponse(s.PermissionsObject),
    ...errorResponses({
      400: ["invalid id format", "user is not a curator", "permissions not found"],
      404: "user not found",
    }),
  },
});

usersRoutes.openapi(getPermissionsRoute, async (c) =>
  ok(c, await getPermissions(c.get("services"), { actor: c.get("actor")!, userId: c.req.valid("param").id })),
);

const putPermissionsRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}/permissions",
  ...adminOnly,
  tags,
  summary: "Replace all six flags of a curator's permission set (applies from the curator's next request)",
  request: { params: IdParams, ...jsonBody(s.PermissionsBody) },
  responses: {
    200: okResponse(s.PermissionsObject),
    ...errorResponses({
      400: ["invalid id format", "invalid_request_body", "user is not a curator"],
      404: "user not found",
    }),
  },
});

usersRoutes.openapi(putPermissionsRoute, async (c) =>
  ok(c, await replacePermissions(c.get("services"), { actor: c.get("actor")!, userId: c.req.valid("param").id, flags: c.req.valid("json") })),
);

// ---------------------------------------------------------------------------------------------
// The signed-in member's own profile

const member = { gate: gates.student("curator", "admin"), deny: "forbidden" } as const;

const getProfileRoute = defineRoute({
  method: "get",
  path: "/t/me/profile",
  ...member,
  tags: ["Profile"],
  summary: "Own profile: user fields (avatar as a ready link), role and a summary of the school",
  responses: { 200: okResponse(s.Profile) },
});

usersRoutes.openapi(getProfileRoute, async (c) => ok(c, await getProfile(c.get("services"), { actor: c.get("actor")! })));

const patchProfileRoute = defineRoute({
  method: "patch",
  path: "/t/me/profile",
  ...member,
  tags: ["Profile"],
  summary: "Update own first_name, last_name (min 2) and avatar (https URL or media-asset UUID; null removes it)",
  request: jsonBody(s.ProfilePatchBody),
  responses: { 200: okResponse(s.Profile), ...errorResponses({ 400: "invalid_request_body" }) },
});

usersRoutes.openapi(patchProfileRoute, async (c) =>
  ok(c, await updateProfile(c.get("services"), { actor: c.get("actor")!, body: c.req.valid("json") })),
);

const passwordRoute = defineRoute({
  method: "post",
  path: "/t/me/password",
  ...member,
  tags: ["Profile"],
  summary: "Change own password; by the school's revoke_on_password_change policy the other sessions end (this one stays)",
  request: jsonBody(s.PasswordChangeBody),
  responses: {
    200: okResponse(s.PasswordChangeResult),
    ...errorResponses({ 400: ["invalid current password", "invalid_request_body"] }),
  },
});

usersRoutes.openapi(passwordRoute, async (c) =>
  ok(c, await changeOwnPassword(c.get("services"), { actor: c.get("actor")!, body: c.req.valid("json") })),
);
