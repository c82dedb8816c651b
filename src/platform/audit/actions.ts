/**
 * The catalogue of audit actions (05 section 6; docs/decisions/audit.md, "Actions"): every name a
 * route may declare (`audit: { actions: [...] }`) or a service may write. Platform, content and
 * accommodation actions, and those of the features after the log that write their own entries.
 */
export const AUDIT_ACTIONS = [
  // Users and roles.
  "user.created",
  "user.updated",
  "user.role_changed",
  "user.permissions_changed",
  "user.deactivated",
  "user.reactivated",
  "user.deleted",
  "user.purged",
  "user.curator_assigned",
  // Devices and sessions.
  "device.blocked",
  "device.unblocked",
  "device.replaced",
  "session.revoked",
  "device_policy.updated",
  "device_override.set",
  "device_override.removed",
  // The school, its pushes and billing.
  "school.settings_updated",
  "school.branding_updated",
  "notification_event.updated",
  "campaign.created",
  "campaign.cancelled",
  "billing.activated",
  "billing.extended",
  "billing.suspended",
  "billing.resumed",
  // Content.
  "enrollment.removed",
  "group_enrollment.removed",
  "group.member_added",
  "group.member_removed",
  "quiz_attempt.graded",
  "submission.reviewed",
  "submission.reopened",
  "rating.adjusted",
  // Accommodations.
  "accommodation.set",
  "accommodation.removed",
  "attempt.extended",
  "exam_attempt.extended",
  // Features after the log.
  "regrade.applied",
  "certificate.revoked",
  "import.applied",
  "webhook.created",
  "webhook.updated",
  "webhook.deleted",
  "webhook.secret_rotated",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGET_TYPES = [
  "user",
  "device",
  "session",
  "device_policy",
  "device_override",
  "school",
  "notification_event",
  "campaign",
  "enrollment",
  "group",
  "quiz_attempt",
  "submission",
  "rating_adjustment",
  "accommodation",
  "exam_attempt",
  "quiz_question",
] as const;
