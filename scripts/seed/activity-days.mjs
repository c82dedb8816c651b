import { activityDaysSql } from "../lib/activity-days.mjs";
import { DEMO } from "./demo.mjs";

/**
 * The demo school's daily activity flags (docs/decisions/heavy-reads.md, "Fourth pass: daily
 * activity"), rebuilt from the completions, attempts and hand-ins the sections before wrote
 * directly. Last, so it sees every one of them; a rebuild, so a second run changes nothing.
 */
export function activityDays() {
  return [activityDaysSql(DEMO.tenantId)];
}
