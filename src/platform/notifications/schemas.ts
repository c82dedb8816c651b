import { z } from "@hono/zod-openapi";
import { plainText, searchTerm } from "../../core/http/fields";
import { pageQuery } from "../../core/http/pagination";
import { AUDIENCE_OPTION_KINDS } from "./audience-service";

const iso = z.string().openapi({ format: "date-time" });
const isoOrNull = iso.nullable();
const platform = z.enum(["web", "ios", "android"]);
/** Tokens are opaque provider strings: no whitespace or control characters, never returned. */
const pushToken = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x21-\x7E]+$/, "must be a provider registration token (printable ASCII, no spaces)");
const appVersion = plainText({ max: 64 }).nullable();

// ---------------------------------------------------------------------------------------------
// Self-service

export const Preference = z.object({ preference: z.object({ push_enabled: z.boolean(), updated_at: isoOrNull }) }).openapi("PushPreference");
export const PreferencePatch = z.object({ push_enabled: z.boolean() }).openapi("PushPreferencePatch");

export const HistoryQuery = z.object(pageQuery({ maxLimit: 100, defaultLimit: 20 }));

const Notification = z
  .object({
    id: z.string(),
    event_code: z.string(),
    category: z.string(),
    title: z.string(),
    body: z.string(),
    deep_link: z.string().nullable(),
    data: z.record(z.string(), z.unknown()),
    aggregate_type: z.string().nullable(),
    aggregate_id: z.string().nullable(),
    sent_at: isoOrNull,
    created_at: iso,
  })
  .openapi("Notification");
export const NotificationPage = z.object({ notifications: z.array(Notification), total: z.number().int(), page: z.number().int(), limit: z.number().int() });

const PushDevice = z
  .object({
    id: z.string(),
    installation_id: z.string(),
    provider: z.string(),
    platform,
    enabled: z.boolean(),
    app_version: z.string().nullable(),
    last_seen_at: iso,
    created_at: iso,
    updated_at: iso,
  })
  .openapi("PushDevice");
export const PushDeviceList = z.object({ devices: z.array(PushDevice) });
export const PushDeviceResult = z.object({ device: PushDevice });

export const PushDeviceBody = z
  .object({
    installation_id: plainText({ min: 1, max: 255 }),
    token: pushToken,
    platform,
    provider: z.literal("fcm").optional().openapi({ description: "The one provider; it is the default" }),
    app_version: appVersion.optional(),
  })
  .openapi("PushDeviceRegistration");

export const PushDevicePatch = z
  .object({ token: pushToken.optional(), platform: platform.optional(), enabled: z.boolean().optional(), app_version: appVersion.optional() })
  .openapi("PushDevicePatch");

// ---------------------------------------------------------------------------------------------
// Events

const EventDefinition = z
  .object({
    code: z.string(),
    category: z.string(),
    name: z.string(),
    description: z.string(),
    default_enabled: z.boolean(),
    default_config: z.record(z.string(), z.unknown()),
    implemented: z.boolean(),
    source: z.string(),
    recipients: z.string(),
    variables: z.array(z.string()),
    enabled: z.boolean(),
    config: z.record(z.string(), z.unknown()),
    title_template: z.string(),
    body_template: z.string(),
    overridden: z.boolean(),
  })
  .openapi("PushEventDefinition");
export const EventList = z.object({ events: z.array(EventDefinition) });
export const EventResult = z.object({ event: EventDefinition });
export const EventParams = z.object({ code: z.string().max(100).openapi({ example: "security.password_changed" }) });
export const EventPatch = z
  .object({
    enabled: z.boolean().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    title_template: z.string().nullable().optional().openapi({ description: "Non-empty, at most 160 UTF-8 bytes after trimming; null restores the default" }),
    body_template: z.string().nullable().optional().openapi({ description: "Non-empty, at most 2000 UTF-8 bytes after trimming; null restores the default" }),
  })
  .openapi("PushEventPatch");

// ---------------------------------------------------------------------------------------------
// Audience

/** Documented shape; the filter engine checks it (400 `invalid_notification_audience`), not the body validator. */
const AudienceFilter = z
  .unknown()
  .openapi({
    type: "object",
    description: "{match: 'all'|'any', rules: [{field, operator, values | value}]}; empty rules means every active student",
    properties: {
      match: { type: "string", enum: ["all", "any"] },
      rules: {
        type: "array",
        items: {
          type: "object",
          properties: {
            field: { type: "string", example: "group_id" },
            operator: { type: "string", example: "in" },
            values: { type: "array", items: { type: "string" } },
            value: { type: "string" },
          },
        },
      },
    },
  });

export const OptionsQuery = z.object({
  kind: z.enum(AUDIENCE_OPTION_KINDS),
  q: searchTerm(100),
  limit: z.coerce.number().int().min(1).max(50).default(20),
});
export const OptionsResult = z.object({
  kind: z.string(),
  options: z.array(z.object({ id: z.string(), label: z.string(), subtitle: z.string().nullable() })),
  total: z.number().int(),
  limit: z.number().int(),
});

export const PreviewBody = z.object({ filter: AudienceFilter, sample_limit: z.number().int().min(1).max(100).default(20) }).openapi("AudiencePreviewRequest");
export const PreviewResult = z.object({
  audience: z.object({
    count: z.number().int(),
    sample: z.array(z.object({ id: z.string(), email: z.string(), first_name: z.string(), last_name: z.string() })),
    sample_limit: z.number().int(),
    capped: z.boolean(),
  }),
});

// ---------------------------------------------------------------------------------------------
// Campaigns

const Campaign = z
  .object({
    id: z.string(),
    status: z.enum(["scheduled", "processing", "completed", "failed", "cancelled"]),
    title: z.string(),
    body: z.string(),
    deep_link: z.string().nullable(),
    audience_filter: z.record(z.string(), z.unknown()),
    audience_count: z.number().int(),
    outbox_created_count: z.number().int(),
    sent_count: z.number().int(),
    failed_count: z.number().int(),
    scheduled_at: iso,
    started_at: isoOrNull,
    completed_at: isoOrNull,
    cancelled_at: isoOrNull,
    created_by_user_id: z.string().nullable(),
    created_at: iso,
    updated_at: iso,
  })
  .openapi("PushCampaign");
export const CampaignResult = z.object({ campaign: Campaign });
export const CampaignPage = z.object({ campaigns: z.array(Campaign), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
export const CampaignQuery = z.object(pageQuery({ maxLimit: 100, defaultLimit: 20 }));

export const CampaignBody = z
  .object({
    title: z.string().openapi({ description: "Non-empty, at most 160 UTF-8 bytes" }),
    body: z.string().openapi({ description: "Non-empty, at most 2000 UTF-8 bytes" }),
    deep_link: z.string().max(1000).nullable().optional().openapi({ description: "A same-origin relative path such as /courses/123" }),
    filter: AudienceFilter,
    scheduled_at: z.iso.datetime({ offset: true }).nullable().optional().openapi({ description: "RFC 3339, in the future; null or absent sends now" }),
  })
  .openapi("PushCampaignCreate");
