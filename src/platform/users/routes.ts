import { jsonBody, optionalJsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { requestLocale } from "../email/request-locale";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { authErrors } from "../auth/errors";
import { usersErrors as e } from "./errors";
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
const adminOnly = { gate: gates.admin, deny: "forbidden", errors: { param: e.INVALID_ID_FORMAT.code } } as const;

// ---------------------------------------------------------------------------------------------
// Users of the school

const createUserRoute = defineRoute({
  method: "post",
  path: "/t/users",
  audit: { actions: ["user.created"] },
  ...manageStudents,
  tags,
  summary: "Create a user; queues a welcome email with the login link (never the password). Curators create students only",
  request: jsonBody(s.CreateUserBody),
  failures: [e.EMAIL_TAKEN, e.CURATORS_CREATE_STUDENTS_ONLY],
  responses: { 201: okResponse(s.UserObject) },
});

usersRoutes.openapi(createUserRoute, async (c) =>
  ok(c, await createUser(tenantCtx(c), { body: c.req.valid("json"), locale: requestLocale(c) }), 201),
);

const listUsersRoute = defineRoute({
  method: "get",
  path: "/t/users",
  ...manageStudents,
  errors: { query: "invalid_params" },
  tags,
  summary: "List users (a restricted curator sees only their own students)",
  request: { query: s.ListUsersQuery },
  responses: { 200: okResponse(s.UserList) },
});

usersRoutes.openapi(listUsersRoute, async (c) => ok(c, await listUsers(tenantCtx(c), { query: c.req.valid("query") })));

for (const active of [true, false]) {
  const route = defineRoute({
    method: "post",
    path: active ? "/t/users/bulk-activate" : "/t/users/bulk-deactivate",
    audit: { actions: [active ? "user.reactivated" : "user.deactivated"] },
    ...manageStudents,
    errors: { body: "invalid_params" },
    tags,
    summary: active
      ? "Activate up to 100 users (idempotent)"
      : "Deactivate up to 100 users (idempotent); their sessions are revoked at once",
    request: jsonBody(s.BulkBody),
    failures: [e.CANNOT_MODIFY_SELF],
    responses: { 200: okResponse(s.BulkResult) },
  });
  usersRoutes.openapi(route, async (c) => ok(c, await bulkSetActive(tenantCtx(c), { ids: c.req.valid("json").ids, active })));
}

const getUserRoute = defineRoute({
  method: "get",
  path: "/t/users/{id}",
  ...manageStudents,
  errors: { param: e.INVALID_ID_FORMAT.code },
  tags,
  summary: "One user with groups and individual curator",
  request: { params: IdParams },
  failures: [e.USER_NOT_VISIBLE],
  responses: { 200: okResponse(s.UserDetail) },
});

usersRoutes.openapi(getUserRoute, async (c) => ok(c, await getUser(tenantCtx(c), { id: c.req.valid("param").id })));

const assignCuratorRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}/curator",
  audit: { actions: ["user.curator_assigned"] },
  gate: gates.permission("can_manage_groups"),
  deny: "permission_denied",
  errors: { param: "invalid_id_format", body: "invalid_request_body" },
  tags,
  summary: "Assign a student's individual curator (null clears it)",
  request: { params: IdParams, ...jsonBody(s.CuratorBody) },
  failures: [e.CURATOR_NOT_ELIGIBLE, e.STUDENT_NOT_FOUND],
  responses: { 200: okResponse(s.UserDetail) },
});

usersRoutes.openapi(assignCuratorRoute, async (c) =>
  ok(c, await assignCurator(tenantCtx(c), { id: c.req.valid("param").id, curatorId: c.req.valid("json").curator_id })),
);

const updateUserRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}",
  audit: { actions: ["user.updated", "user.deactivated", "user.reactivated"] },
  ...adminOnly,
  tags,
  summary: "Update names, avatar or active state; deactivation revokes the user's sessions",
  request: { params: IdParams, ...optionalJsonBody(s.UpdateUserBody) },
  failures: [e.CANNOT_MODIFY_SELF, e.USER_NOT_FOUND],
  responses: { 200: okResponse(s.UserObject) },
});

usersRoutes.openapi(updateUserRoute, async (c) =>
  ok(c, await updateUser(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })),
);

const deleteUserRoute = defineRoute({
  method: "delete",
  path: "/t/users/{id}",
  audit: { actions: ["user.deleted"] },
  ...adminOnly,
  tags,
  summary: "Soft-delete a user; their sessions are revoked at once",
  request: { params: IdParams },
  failures: [e.CANNOT_DELETE_SELF, e.USER_NOT_FOUND],
  responses: { 200: okResponse(s.DeletedResult) },
});

usersRoutes.openapi(deleteUserRoute, async (c) => ok(c, await softDeleteUser(tenantCtx(c), { id: c.req.valid("param").id })));

const permanentDeleteRoute = defineRoute({
  method: "delete",
  path: "/t/users/{id}/permanent",
  audit: { actions: ["user.purged"] },
  ...adminOnly,
  tags,
  summary: "Delete the account and its personal data irreversibly; shared content stays without author",
  request: { params: IdParams },
  failures: [e.PURGE_TARGET_NOT_FOUND, e.CANNOT_DELETE_SELF],
  responses: { 200: okResponse(s.PermanentlyDeletedResult) },
});

usersRoutes.openapi(permanentDeleteRoute, async (c) => ok(c, await permanentlyDeleteUser(tenantCtx(c), { id: c.req.valid("param").id })));

const roleRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}/role",
  audit: { actions: ["user.role_changed"] },
  ...adminOnly,
  errors: { param: e.INVALID_ID_FORMAT.code, body: e.VALIDATION_ERROR.code },
  tags,
  summary: "Change a user's role; becoming curator creates the default permission set if none exists",
  request: { params: IdParams, ...jsonBody(s.RoleBody) },
  failures: [e.CANNOT_MODIFY_SELF, e.USER_NOT_FOUND],
  responses: { 200: okResponse(s.UserWithPermissions) },
});

usersRoutes.openapi(roleRoute, async (c) =>
  ok(c, await changeRole(tenantCtx(c), { id: c.req.valid("param").id, role: c.req.valid("json").role })),
);

const getPermissionsRoute = defineRoute({
  method: "get",
  path: "/t/users/{id}/permissions",
  ...adminOnly,
  tags,
  summary: "A curator's permission set",
  request: { params: IdParams },
  failures: [e.NOT_A_CURATOR, e.PERMISSIONS_NOT_FOUND, e.USER_NOT_FOUND],
  responses: { 200: okResponse(s.PermissionsObject) },
});

usersRoutes.openapi(getPermissionsRoute, async (c) => ok(c, await getPermissions(tenantCtx(c), { userId: c.req.valid("param").id })));

const putPermissionsRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}/permissions",
  audit: { actions: ["user.permissions_changed"] },
  ...adminOnly,
  tags,
  summary: "Replace all six flags of a curator's permission set (applies from the curator's next request)",
  request: { params: IdParams, ...jsonBody(s.PermissionsBody) },
  failures: [e.NOT_A_CURATOR, e.USER_NOT_FOUND],
  responses: { 200: okResponse(s.PermissionsObject) },
});

usersRoutes.openapi(putPermissionsRoute, async (c) =>
  ok(c, await replacePermissions(tenantCtx(c), { userId: c.req.valid("param").id, flags: c.req.valid("json") })),
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

usersRoutes.openapi(getProfileRoute, async (c) => ok(c, await getProfile(tenantCtx(c))));

const patchProfileRoute = defineRoute({
  method: "patch",
  path: "/t/me/profile",
  audit: { none: "self-service: the member's own profile" },
  ...member,
  tags: ["Profile"],
  summary: "Update own first_name, last_name (min 2) and avatar (https URL or media-asset UUID; null removes it)",
  request: jsonBody(s.ProfilePatchBody),
  responses: { 200: okResponse(s.Profile) },
});

usersRoutes.openapi(patchProfileRoute, async (c) => ok(c, await updateProfile(tenantCtx(c), { body: c.req.valid("json") })));

const passwordRoute = defineRoute({
  method: "post",
  path: "/t/me/password",
  audit: { none: "self-service: the member's own password (a secret; the security history records the sessions it ends)" },
  ...member,
  tags: ["Profile"],
  summary: "Change own password; by the school's revoke_on_password_change policy the other sessions end (this one stays)",
  request: jsonBody(s.PasswordChangeBody),
  failures: [e.INVALID_CURRENT_PASSWORD, e.SAME_PASSWORD, authErrors.SIGN_IN_LOCKED],
  responses: { 200: okResponse(s.PasswordChangeResult) },
});

usersRoutes.openapi(passwordRoute, async (c) => ok(c, await changeOwnPassword(tenantCtx(c), { body: c.req.valid("json") })));
