import { DeletedResult, jsonBody, optionalJsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { audienceOptions, previewAudience } from "./audience-service";
import { cancelCampaign, createCampaign, getCampaign, listCampaigns } from "./campaigns-service";
import { notificationsErrors as e } from "./errors";
import { listEvents, updateEvent } from "./events-service";
import {
  deletePushDevice,
  getPreferences,
  myNotifications,
  myPushDevices,
  registerPushDevice,
  updatePreferences,
  updatePushDevice,
} from "./me-service";
import * as s from "./schemas";

export const notificationsRoutes = createArea();

const tags = ["Push notifications"];
const member = { gate: gates.member, deny: "forbidden", tags, failures: [e.NO_SCHOOL_MEMBERSHIP] } as const;
const manager = { gate: gates.permission("can_manage_notifications"), deny: "forbidden", tags } as const;

// ---------------------------------------------------------------------------------------------
// Self-service: the caller's preferences, history and devices

const getPreferencesRoute = defineRoute({
  method: "get",
  path: "/t/notifications/me/preferences",
  ...member,
  summary: "Own push switch (on unless switched off)",
  responses: { 200: okResponse(s.Preference) },
});
notificationsRoutes.openapi(getPreferencesRoute, async (c) => ok(c, await getPreferences(tenantCtx(c))));

const patchPreferencesRoute = defineRoute({
  method: "patch",
  path: "/t/notifications/me/preferences",
  audit: { none: "self-service: the member's own push preferences" },
  ...member,
  errors: { body: e.PUSH_ENABLED_REQUIRED.code },
  summary: "Switch own pushes on or off (devices are kept; new deliveries are suppressed while off)",
  request: jsonBody(s.PreferencePatch),
  responses: { 200: okResponse(s.Preference) },
});
notificationsRoutes.openapi(patchPreferencesRoute, async (c) => ok(c, await updatePreferences(tenantCtx(c), { pushEnabled: c.req.valid("json").push_enabled })));

const historyRoute = defineRoute({
  method: "get",
  path: "/t/notifications/me",
  ...member,
  errors: { query: e.INVALID_PAGINATION.code },
  summary: "Own delivered pushes in this school, one row per notification, newest first",
  request: { query: s.HistoryQuery },
  responses: { 200: okResponse(s.NotificationPage) },
});
notificationsRoutes.openapi(historyRoute, async (c) => ok(c, await myNotifications(tenantCtx(c), c.req.valid("query"))));

const devicesRoute = defineRoute({
  method: "get",
  path: "/t/notifications/me/devices",
  ...member,
  summary: "Own push devices (tokens are never returned)",
  responses: { 200: okResponse(s.PushDeviceList) },
});
notificationsRoutes.openapi(devicesRoute, async (c) => ok(c, await myPushDevices(tenantCtx(c))));

const registerDeviceRoute = defineRoute({
  method: "post",
  path: "/t/notifications/me/devices",
  audit: { none: "self-service: the member registers their own push device" },
  ...member,
  failures: [...member.failures, e.PUSH_NOT_CONFIGURED],
  summary: "Register or refresh a push device (idempotent per installation); the token is stored encrypted",
  request: jsonBody(s.PushDeviceBody),
  responses: { 200: okResponse(s.PushDeviceResult) },
});
notificationsRoutes.openapi(registerDeviceRoute, async (c) => {
  const body = c.req.valid("json");
  return ok(c, await registerPushDevice(tenantCtx(c), { installationId: body.installation_id, token: body.token, platform: body.platform, appVersion: body.app_version }));
});

const updateDeviceRoute = defineRoute({
  method: "patch",
  path: "/t/notifications/me/devices/{id}",
  audit: { none: "self-service: the member's own push device" },
  ...member,
  failures: [...member.failures, e.PUSH_DEVICE_NOT_FOUND, e.PUSH_NOT_CONFIGURED],
  summary: "Change an own push device's token, platform, switch or app version",
  request: { params: IdParams, ...optionalJsonBody(s.PushDevicePatch) },
  responses: { 200: okResponse(s.PushDeviceResult) },
});
notificationsRoutes.openapi(updateDeviceRoute, async (c) => {
  const body = c.req.valid("json");
  return ok(
    c,
    await updatePushDevice(tenantCtx(c), { id: c.req.valid("param").id, token: body.token, platform: body.platform, enabled: body.enabled, appVersion: body.app_version }),
  );
});

const deleteDeviceRoute = defineRoute({
  method: "delete",
  path: "/t/notifications/me/devices/{id}",
  audit: { none: "self-service: the member's own push device" },
  ...member,
  failures: [...member.failures, e.PUSH_DEVICE_NOT_FOUND],
  summary: "Remove an own push device and wipe its stored token for good",
  request: { params: IdParams },
  responses: { 200: okResponse(DeletedResult) },
});
notificationsRoutes.openapi(deleteDeviceRoute, async (c) => ok(c, await deletePushDevice(tenantCtx(c), { id: c.req.valid("param").id })));

// ---------------------------------------------------------------------------------------------
// The event catalog and the school's settings

const listEventsRoute = defineRoute({
  method: "get",
  path: "/t/notifications/admin/events",
  ...manager,
  summary: "The 63 built-in push events with the school's effective settings",
  responses: { 200: okResponse(s.EventList) },
});
notificationsRoutes.openapi(listEventsRoute, async (c) => ok(c, await listEvents(tenantCtx(c))));

const patchEventRoute = defineRoute({
  method: "patch",
  path: "/t/notifications/admin/events/{code}",
  audit: { actions: ["notification_event.updated"] },
  ...manager,
  errors: { body: e.VALIDATION_FAILED.code },
  failures: [e.VALIDATION_FAILED, e.EVENT_NOT_FOUND, e.EVENT_NOT_IMPLEMENTED],
  summary: "Override an event's switch, config or templates for the school",
  request: { params: s.EventParams, ...optionalJsonBody(s.EventPatch) },
  responses: { 200: okResponse(s.EventResult) },
});
notificationsRoutes.openapi(patchEventRoute, async (c) => ok(c, await updateEvent(tenantCtx(c), { code: c.req.valid("param").code, patch: c.req.valid("json") })));

// ---------------------------------------------------------------------------------------------
// Audiences

const optionsRoute = defineRoute({
  method: "get",
  path: "/t/notifications/admin/audience/options",
  ...manager,
  errors: { query: e.INVALID_AUDIENCE.code },
  failures: [e.INVALID_AUDIENCE],
  summary: "Choices for an audience rule (students, groups), cut to a restricted curator's scope",
  request: { query: s.OptionsQuery },
  responses: { 200: okResponse(s.OptionsResult) },
});
notificationsRoutes.openapi(optionsRoute, async (c) => ok(c, await audienceOptions(tenantCtx(c), c.req.valid("query"))));

const previewRoute = defineRoute({
  method: "post",
  path: "/t/notifications/admin/audience/preview",
  audit: { none: "a read sent as POST: counts an audience, changes nothing" },
  ...manager,
  errors: { body: e.INVALID_AUDIENCE.code },
  failures: [e.INVALID_AUDIENCE],
  summary: "Count the active students a filter selects and show a sample; nothing is saved",
  request: jsonBody(s.PreviewBody),
  responses: { 200: okResponse(s.PreviewResult) },
});
notificationsRoutes.openapi(previewRoute, async (c) => {
  const body = c.req.valid("json");
  return ok(c, await previewAudience(tenantCtx(c), { filter: body.filter, sampleLimit: body.sample_limit }));
});

// ---------------------------------------------------------------------------------------------
// Campaigns

const createCampaignRoute = defineRoute({
  method: "post",
  path: "/t/notifications/admin/campaigns",
  audit: { actions: ["campaign.created"] },
  ...manager,
  errors: { body: e.VALIDATION_FAILED.code },
  failures: [e.VALIDATION_FAILED, e.INVALID_AUDIENCE],
  summary: "Create a campaign: the audience is frozen now and delivered at scheduled_at (now when null)",
  request: jsonBody(s.CampaignBody),
  responses: { 201: okResponse(s.CampaignResult, "Created") },
});
notificationsRoutes.openapi(createCampaignRoute, async (c) => {
  const body = c.req.valid("json");
  return ok(
    c,
    await createCampaign(tenantCtx(c), { title: body.title, body: body.body, deepLink: body.deep_link, filter: body.filter, scheduledAt: body.scheduled_at }),
    201,
  );
});

const listCampaignsRoute = defineRoute({
  method: "get",
  path: "/t/notifications/admin/campaigns",
  ...manager,
  summary: "Campaigns, newest first (a curator sees their own)",
  request: { query: s.CampaignQuery },
  responses: { 200: okResponse(s.CampaignPage) },
});
notificationsRoutes.openapi(listCampaignsRoute, async (c) => ok(c, await listCampaigns(tenantCtx(c), c.req.valid("query"))));

const getCampaignRoute = defineRoute({
  method: "get",
  path: "/t/notifications/admin/campaigns/{id}",
  ...manager,
  failures: [e.CAMPAIGN_NOT_FOUND],
  summary: "A campaign with its filter snapshot and counters",
  request: { params: IdParams },
  responses: { 200: okResponse(s.CampaignResult) },
});
notificationsRoutes.openapi(getCampaignRoute, async (c) => ok(c, await getCampaign(tenantCtx(c), { id: c.req.valid("param").id })));

const cancelCampaignRoute = defineRoute({
  method: "post",
  path: "/t/notifications/admin/campaigns/{id}/cancel",
  audit: { actions: ["campaign.cancelled"] },
  ...manager,
  failures: [e.CAMPAIGN_NOT_FOUND, e.CAMPAIGN_IMMUTABLE],
  summary: "Cancel a scheduled or processing campaign: undelivered pushes are suppressed, delivered ones stay",
  request: { params: IdParams },
  responses: { 200: okResponse(s.CampaignResult) },
});
notificationsRoutes.openapi(cancelCampaignRoute, async (c) => ok(c, await cancelCampaign(tenantCtx(c), { id: c.req.valid("param").id })));
