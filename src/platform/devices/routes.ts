import type { z } from "@hono/zod-openapi";
import { DeletedResult, jsonBody, optionalJsonBody } from "../../core/http/fields";
import { clientInfo } from "./client-info";
import { gates } from "../../core/http/gates";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { devicesErrors as e } from "./errors";
import { touchSession } from "./activity-service";
import { myDeviceEvents, myDevices, studentDeviceEvents, studentDevices } from "./inventory-service";
import { deleteOverride, getDevicePolicy, getOverride, putOverride, updateDevicePolicy } from "./policy-service";
import { adminRevokeAll, adminRevokeDevice, blockDevice, revokeOtherSessions, revokeOwnDevice, unblockDevice } from "./revocation-service";
import * as s from "./schemas";

export const devicesRoutes = createArea();

const tags = ["Devices and sessions"];
const member = { gate: gates.member, deny: "forbidden", tags } as const;
const admin = { gate: gates.admin, deny: "forbidden", tags } as const;

// ---------------------------------------------------------------------------------------------
// The caller's own devices and sessions

const myDevicesRoute = defineRoute({
  method: "get",
  path: "/t/me/devices",
  ...member,
  summary: "Own devices with the effective device limit",
  responses: { 200: okResponse(s.DeviceInventory) },
});
devicesRoutes.openapi(myDevicesRoute, async (c) => ok(c, await myDevices(tenantCtx(c))));

const myEventsRoute = defineRoute({
  method: "get",
  path: "/t/me/device-events",
  ...member,
  summary: "Own security history (logins, logouts, refusals, revocations, blocks), newest first",
  request: { query: s.EventsQuery },
  responses: { 200: okResponse(s.DeviceEventPage) },
});
devicesRoutes.openapi(myEventsRoute, async (c) => ok(c, await myDeviceEvents(tenantCtx(c), { query: c.req.valid("query") })));

const revokeOwnRoute = defineRoute({
  method: "post",
  path: "/t/me/devices/{deviceId}/revoke",
  audit: { none: "self-service: the member signs out one of their own devices (security history records it)" },
  ...member,
  summary: "End all active sessions of one own device",
  request: { params: s.DeviceParams },
  failures: [e.SELF_MANAGEMENT_DISABLED, e.DEVICE_NOT_FOUND],
  responses: { 200: okResponse(s.RevokeResult) },
});
devicesRoutes.openapi(revokeOwnRoute, async (c) =>
  ok(c, await revokeOwnDevice(tenantCtx(c), { deviceId: c.req.valid("param").deviceId, client: clientInfo(c) })),
);

const revokeOthersRoute = defineRoute({
  method: "post",
  path: "/t/me/sessions/revoke-others",
  audit: { none: "self-service: the member ends their own other sessions (security history records it)" },
  ...member,
  summary: "End every managed session of the caller except the current one",
  failures: [e.SELF_MANAGEMENT_DISABLED],
  responses: { 200: okResponse(s.RevokeResult) },
});
devicesRoutes.openapi(revokeOthersRoute, async (c) => ok(c, await revokeOtherSessions(tenantCtx(c), { client: clientInfo(c) })));

const activityRoute = defineRoute({
  method: "post",
  path: "/t/me/session/activity",
  audit: { none: "activity ping of the caller's own session" },
  ...member,
  summary: "Extend the current session's sliding idle timeout (written at most once a minute; repeating is safe)",
  responses: { 200: okResponse(s.SessionActivity) },
});
devicesRoutes.openapi(activityRoute, async (c) => ok(c, await touchSession(tenantCtx(c))));

// ---------------------------------------------------------------------------------------------
// School policy

const getPolicyRoute = defineRoute({
  method: "get",
  path: "/t/tenant/device-policy",
  ...member,
  summary: "The school's device policy (defaults until an admin saves one)",
  responses: { 200: okResponse(s.DevicePolicyObject) },
});
devicesRoutes.openapi(getPolicyRoute, async (c) => ok(c, await getDevicePolicy(tenantCtx(c))));

const patchPolicyRoute = defineRoute({
  method: "patch",
  path: "/t/tenant/device-policy",
  audit: { actions: ["device_policy.updated"] },
  ...admin,
  errors: { body: e.INVALID_DEVICE_POLICY.code },
  summary: "Change any policy fields; omitted fields are kept; max_active_devices null means no limit",
  request: jsonBody(s.DevicePolicyPatch),
  responses: { 200: okResponse(s.DevicePolicyObject) },
});
devicesRoutes.openapi(patchPolicyRoute, async (c) => ok(c, await updateDevicePolicy(tenantCtx(c), { patch: c.req.valid("json") })));

// ---------------------------------------------------------------------------------------------
// A student's devices (admin)

const studentDevicesRoute = defineRoute({
  method: "get",
  path: "/t/users/{id}/devices",
  ...admin,
  summary: "A student's devices with the effective limit (override included)",
  request: { params: IdParams },
  failures: [e.STUDENT_NOT_FOUND],
  responses: { 200: okResponse(s.StudentDeviceInventory) },
});
devicesRoutes.openapi(studentDevicesRoute, async (c) => ok(c, await studentDevices(tenantCtx(c), { userId: c.req.valid("param").id })));

const studentEventsRoute = defineRoute({
  method: "get",
  path: "/t/users/{id}/device-events",
  ...admin,
  summary: "A student's security history, newest first",
  request: { params: IdParams, query: s.EventsQuery },
  failures: [e.STUDENT_NOT_FOUND],
  responses: { 200: okResponse(s.DeviceEventPage) },
});
devicesRoutes.openapi(studentEventsRoute, async (c) =>
  ok(c, await studentDeviceEvents(tenantCtx(c), { userId: c.req.valid("param").id, query: c.req.valid("query") })),
);

const adminRevokeRoute = defineRoute({
  method: "post",
  path: "/t/users/{id}/devices/{deviceId}/revoke",
  audit: { actions: ["session.revoked"] },
  ...admin,
  summary: "End all sessions of a student's device",
  request: { params: s.UserDeviceParams },
  failures: [e.STUDENT_NOT_FOUND, e.DEVICE_NOT_FOUND],
  responses: { 200: okResponse(s.RevokeResult) },
});
devicesRoutes.openapi(adminRevokeRoute, async (c) => {
  const { id, deviceId } = c.req.valid("param");
  return ok(c, await adminRevokeDevice(tenantCtx(c), { userId: id, deviceId }));
});

const blockRoute = defineRoute({
  method: "post",
  path: "/t/users/{id}/devices/{deviceId}/block",
  audit: { actions: ["device.blocked"] },
  ...admin,
  summary: "Forbid future logins from the installation and end its sessions (repeating is safe)",
  request: { params: s.UserDeviceParams, ...optionalJsonBody(s.BlockBody) },
  failures: [e.STUDENT_NOT_FOUND, e.DEVICE_NOT_FOUND],
  responses: { 200: okResponse(s.DeviceBlockState) },
});
devicesRoutes.openapi(blockRoute, async (c) => {
  const { id, deviceId } = c.req.valid("param");
  const body = c.req.valid("json") as z.infer<typeof s.BlockBody> | undefined;
  return ok(c, await blockDevice(tenantCtx(c), { userId: id, deviceId, reason: body?.reason ?? null }));
});

const unblockRoute = defineRoute({
  method: "post",
  path: "/t/users/{id}/devices/{deviceId}/unblock",
  audit: { actions: ["device.unblocked"] },
  ...admin,
  summary: "Lift the ban; sessions ended by the block stay ended",
  request: { params: s.UserDeviceParams },
  failures: [e.STUDENT_NOT_FOUND, e.DEVICE_NOT_FOUND],
  responses: { 200: okResponse(s.DeviceBlockState) },
});
devicesRoutes.openapi(unblockRoute, async (c) => {
  const { id, deviceId } = c.req.valid("param");
  return ok(c, await unblockDevice(tenantCtx(c), { userId: id, deviceId }));
});

const revokeAllRoute = defineRoute({
  method: "post",
  path: "/t/users/{id}/sessions/revoke-all",
  audit: { actions: ["session.revoked"] },
  ...admin,
  summary: "End every managed session of the student",
  request: { params: IdParams },
  failures: [e.STUDENT_NOT_FOUND],
  responses: { 200: okResponse(s.RevokeResult) },
});
devicesRoutes.openapi(revokeAllRoute, async (c) => ok(c, await adminRevokeAll(tenantCtx(c), { userId: c.req.valid("param").id })));

// ---------------------------------------------------------------------------------------------
// Per-student override (admin)

const overrideFailures = [e.STUDENT_NOT_FOUND, e.OVERRIDE_NOT_FOUND];

const getOverrideRoute = defineRoute({
  method: "get",
  path: "/t/users/{id}/device-policy-override",
  ...admin,
  summary: "The student's override, or 404 device_policy_override_not_found while the school defaults apply",
  request: { params: IdParams },
  failures: overrideFailures,
  responses: { 200: okResponse(s.OverrideObject) },
});
devicesRoutes.openapi(getOverrideRoute, async (c) => ok(c, await getOverride(tenantCtx(c), { userId: c.req.valid("param").id })));

const putOverrideRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}/device-policy-override",
  audit: { actions: ["device_override.set"] },
  ...admin,
  summary: "Create or replace the student's override",
  request: { params: IdParams, ...jsonBody(s.OverrideBody) },
  failures: [e.STUDENT_NOT_FOUND],
  responses: { 200: okResponse(s.OverrideObject) },
});
devicesRoutes.openapi(putOverrideRoute, async (c) =>
  ok(c, await putOverride(tenantCtx(c), { userId: c.req.valid("param").id, body: c.req.valid("json") })),
);

const deleteOverrideRoute = defineRoute({
  method: "delete",
  path: "/t/users/{id}/device-policy-override",
  audit: { actions: ["device_override.removed"] },
  ...admin,
  summary: "Remove the override (the school's policy applies again)",
  request: { params: IdParams },
  failures: overrideFailures,
  responses: { 200: okResponse(DeletedResult) },
});
devicesRoutes.openapi(deleteOverrideRoute, async (c) => ok(c, await deleteOverride(tenantCtx(c), { userId: c.req.valid("param").id })));
