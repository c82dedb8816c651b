import { errorCatalogue } from "../../core/http/errors";

/** Failures of the push area: self-service, the event catalog, audiences and campaigns. */
export const notificationsErrors = errorCatalogue({
  /** The body-validation identifier of PATCH /me/preferences. */
  PUSH_ENABLED_REQUIRED: [400, "push_enabled is required", "Send push_enabled as true or false."],
  INVALID_PAGINATION: [400, "invalid_pagination", "page must be an integer from 1 and limit an integer from 1 to 100."],
  PUSH_NOT_CONFIGURED: [503, "push_not_configured", "Push notifications are not configured on this server; try again later."],
  PUSH_DEVICE_NOT_FOUND: [404, "push_device_not_found", "No such push device of yours."],
  /** The superadmin belongs to no school, so it has no push preferences, devices or history there. */
  NO_SCHOOL_MEMBERSHIP: [403, "forbidden", "Push self-service is for members of this school; the superadmin has none."],

  VALIDATION_FAILED: [400, "notification_validation_failed", "The notification settings or message are invalid."],
  EVENT_NOT_FOUND: [404, "notification_event_not_found", "No built-in push event has this code."],
  EVENT_NOT_IMPLEMENTED: [409, "notification_event_not_implemented", "This event ships with the area that produces it; it cannot be configured yet."],
  INVALID_AUDIENCE: [400, "invalid_notification_audience", "The audience filter or query is invalid."],
  CAMPAIGN_NOT_FOUND: [404, "notification_campaign_not_found", "No such campaign."],
  CAMPAIGN_IMMUTABLE: [409, "notification_campaign_immutable", "The campaign has already finished and cannot be changed."],
});
