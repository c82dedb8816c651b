import { z } from "@hono/zod-openapi";
import { ErrorBody } from "../../core/http/envelope";
import { IdParams, pageQuery, uuidParam } from "../../core/http/pagination";
import { DEVICE_EVENT_TYPES } from "./events";

/** A free-text reason up to 500 characters; blank means none (stored as null). */
const optionalReason = z
  .string()
  .trim()
  .max(500)
  .transform((value) => (value === "" ? null : value))
  .nullable()
  .optional();

const iso = z.string().openapi({ format: "date-time" });
const isoOrNull = iso.nullable();

// ---------------------------------------------------------------------------------------------
// Policy

export const DevicePolicyObject = z
  .object({
    mode: z.enum(["monitor_only", "enforce"]),
    max_active_devices: z.number().int().nullable().openapi({ description: "1-10; null means no limit" }),
    inactive_device_days: z.number().int(),
    allow_self_management: z.boolean(),
    allow_self_replacement: z.boolean(),
    notify_on_new_device: z.boolean(),
    revoke_on_password_change: z.boolean(),
    revoke_on_password_reset: z.boolean(),
    session_idle_timeout_minutes: z.number().int(),
    session_absolute_lifetime_days: z.number().int(),
    event_retention_days: z.number().int(),
    ip_visibility: z.enum(["none", "masked", "full"]),
    updated_at: isoOrNull.openapi({ description: "null while the school uses the defaults" }),
  })
  .openapi("DevicePolicy");

export const DevicePolicyPatch = z
  .object({
    mode: z.enum(["monitor_only", "enforce"]).optional(),
    max_active_devices: z.number().int().min(1).max(10).nullable().optional().openapi({ description: "explicit null: no limit" }),
    inactive_device_days: z.number().int().min(1).max(365).optional(),
    allow_self_management: z.boolean().optional(),
    allow_self_replacement: z.boolean().optional(),
    notify_on_new_device: z.boolean().optional(),
    revoke_on_password_change: z.boolean().optional(),
    revoke_on_password_reset: z.boolean().optional(),
    session_idle_timeout_minutes: z.number().int().min(5).max(525_600).optional(),
    session_absolute_lifetime_days: z.number().int().min(1).max(365).optional(),
    event_retention_days: z.number().int().min(1).max(3650).optional(),
    ip_visibility: z.enum(["none", "masked", "full"]).optional(),
  })
  .openapi("DevicePolicyPatch");

// ---------------------------------------------------------------------------------------------
// Per-student override

export const OverrideBody = z
  .object({
    unlimited_devices: z.boolean(),
    max_active_devices: z.number().int().min(1).max(10).nullable().optional(),
    expires_at: z.iso.datetime({ offset: true }).nullable().optional().openapi({ description: "future RFC 3339 time, or null for no expiry" }),
    reason: optionalReason,
  })
  .refine((body) => !(body.unlimited_devices && body.max_active_devices != null), {
    path: ["max_active_devices"],
    message: "only allowed when unlimited_devices is false",
  })
  .openapi("DeviceLimitOverrideRequest");

export const OverrideObject = z
  .object({
    user_id: z.string(),
    unlimited_devices: z.boolean(),
    max_active_devices: z.number().int().nullable(),
    expires_at: isoOrNull,
    reason: z.string().nullable(),
    created_by_user_id: z.string().nullable(),
    created_at: iso,
    updated_at: iso,
  })
  .openapi("DeviceLimitOverride");

// ---------------------------------------------------------------------------------------------
// Inventory and history

const DeviceItem = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    platform: z.enum(["web", "ios", "android"]),
    status: z.enum(["online", "active", "inactive", "signed_out", "blocked"]).openapi({
      description:
        "online: a live session and seen in the last 5 minutes; active: a live session; inactive: unseen for inactive_device_days; signed_out: no live session; blocked: banned by an admin",
    }),
    last_seen_at: iso,
    active_sessions: z.number().int(),
    is_current: z.boolean(),
    installation_id: z.string().nullable(),
    os_name: z.string().nullable(),
    os_version: z.string().nullable(),
    browser_name: z.string().nullable(),
    browser_version: z.string().nullable(),
    app_version: z.string().nullable(),
    last_ip: z.string().nullable().openapi({ description: "shown per the school's ip_visibility (none, masked to /24 or /48, full)" }),
    blocked_at: isoOrNull,
    block_reason: z.string().nullable(),
    created_at: iso,
  })
  .openapi("DeviceInventoryItem");

export const DeviceInventory = z
  .object({
    active_devices: z.number().int(),
    max_active_devices: z.number().int().nullable().openapi({ description: "the effective limit; null means no limit" }),
    online_now: z.number().int(),
    active_sessions: z.number().int(),
    devices: z.array(DeviceItem),
  })
  .openapi("DeviceInventory");

export const StudentDeviceInventory = DeviceInventory.extend({
  limit_source: z.enum(["role", "school", "override"]),
  mode: z.enum(["monitor_only", "enforce"]),
  override: OverrideObject.nullable(),
}).openapi("StudentDeviceInventory");

const DeviceEvent = z
  .object({
    id: z.string(),
    type: z.enum(DEVICE_EVENT_TYPES),
    auth_device_id: z.string().nullable(),
    device_name: z.string().nullable(),
    platform: z.string().nullable(),
    session_id: z.string().nullable(),
    ip: z.string().nullable().openapi({ description: "per the school's ip_visibility" }),
    user_agent: z.string().nullable(),
    actor_user_id: z.string().nullable().openapi({ description: "the admin who acted; null for the user's own actions and the system" }),
    detail: z.record(z.string(), z.unknown()).nullable(),
    created_at: iso,
  })
  .openapi("DeviceEvent");

export const DeviceEventPage = z
  .object({ events: z.array(DeviceEvent), total: z.number().int(), page: z.number().int(), limit: z.number().int() })
  .openapi("DeviceEventPage");

export const EventsQuery = z.object(pageQuery({ maxLimit: 200, defaultLimit: 50 }));

// ---------------------------------------------------------------------------------------------
// Actions

export const DeviceParams = z.object({ deviceId: uuidParam });
export const UserDeviceParams = IdParams.extend({ deviceId: uuidParam });

export const BlockBody = z.object({ reason: optionalReason }).openapi("DeviceBlockRequest");

export const RevokeResult = z
  .object({
    device_id: z.string().nullable(),
    revoked_sessions: z.number().int().openapi({ description: "live sessions ended by this call (0 when repeated)" }),
  })
  .openapi("SessionRevokeResult");

export const DeviceBlockState = z
  .object({
    device_id: z.string(),
    blocked: z.boolean(),
    blocked_at: isoOrNull,
    block_reason: z.string().nullable(),
    revoked_sessions: z.number().int().openapi({ description: "live sessions the block ended (0 on unblock or a repeated block)" }),
  })
  .openapi("DeviceBlockState");

export const SessionActivity = z
  .object({
    session_id: z.string().nullable(),
    extended: z.boolean().openapi({ description: "false when the last extension was under a minute ago (rate limit), the token has no session, or a lowered session_absolute_lifetime_days has just ended the session" }),
    last_activity_at: isoOrNull,
    idle_expires_at: isoOrNull,
    expires_at: isoOrNull,
  })
  .openapi("SessionActivity");

// ---------------------------------------------------------------------------------------------
// POST /auth/device-limit/replace

export const ReplaceBody = z
  .object({
    replacement_token: z.string().min(1).max(200),
    revoke_device_id: uuidParam,
    tenant_subdomain: z
      .string()
      .trim()
      .max(100)
      .regex(/^[A-Za-z0-9]*$/, "Latin letters and digits only")
      .transform((value) => value.toLowerCase())
      .optional(),
  })
  .openapi("DeviceReplaceRequest");

const SafeDevice = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    platform: z.string(),
    os_name: z.string().nullable(),
    os_version: z.string().nullable(),
    browser_name: z.string().nullable(),
    browser_version: z.string().nullable(),
    app_version: z.string().nullable(),
    last_seen_at: iso,
    created_at: iso,
  })
  .openapi("DeviceLimitDevice");

const DeviceLimitErrorData = z
  .object({
    max_active_devices: z.number().int().nullable(),
    active_devices: z.number().int(),
    devices: z.array(SafeDevice),
    replacement_token: z.string().optional().openapi({ description: "only when the school allows self-replacement; single use, 10 minutes" }),
    replacement_expires_at: iso.optional(),
  })
  .openapi("DeviceLimitErrorData");

/** The 409 of login and of the replacement, documented with the device list in `data` (spread into `responses`). */
export function deviceLimitConflictResponse(codes: string[]) {
  const response = {
    description: `${codes.map((code) => `\`${code}\``).join(", ")}; \`device_limit_reached\` carries DeviceLimitErrorData in \`data\``,
    content: { "application/json": { schema: DeviceLimitError } },
  };
  return { 409: response } as Record<string, typeof response>;
}

const DeviceLimitError = ErrorBody.extend({ data: DeviceLimitErrorData.optional() }).openapi("DeviceLimitError");
