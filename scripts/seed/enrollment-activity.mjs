import { enrollmentLastCompletionSql } from "../lib/enrollment-activity.mjs";
import { DEMO } from "./demo.mjs";

/**
 * The demo school's enrollments' latest completion (docs/decisions/heavy-reads-enrollments.md,
 * "Enrollment lists"), from the completions the sections before wrote directly. Last, so it sees
 * every one of them; a rebuild, so a second run changes nothing.
 */
export function enrollmentActivity() {
  return [enrollmentLastCompletionSql(DEMO.tenantId)];
}
