import { errorCatalogue } from "../../core/http/errors";

/** Failures of schedule windows (default and group grids) and of the schedule gate. */
export const scheduleErrors = errorCatalogue({
  TARGET_NOT_FOUND: [404, "schedule_target_not_found", "No such course, module, lesson or group."],
  WINDOW_NOT_FOUND: [404, "schedule_window_not_found", "No window is set on this node."],
  NO_BOUNDS: [400, "schedule_window_no_bounds", "Set starts_at, ends_at or both."],
  INVERTED: [400, "schedule_window_inverted", "starts_at must not be later than ends_at."],
  MODULE_SCHEDULE_REQUIRED: [409, "module_schedule_required", "Set a window on the lesson's module in the same grid first."],
  WINDOW_CLOSED: [403, "schedule_window_closed", "The lesson is closed by its dates."],
});
