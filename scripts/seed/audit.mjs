import { DAY_MS, DEMO, id, insertOnce } from "./demo.mjs";
import { RATING } from "./rating.mjs";

/**
 * A short history in the demo school's audit log (docs/decisions/audit.md), every entry by Ada the
 * admin about a seeded object, with `changes` shaped as the services write them:
 *
 *   12 days  accommodation.set      Omar's profile, from the neutral one
 *    9 days  device_policy.updated  enforce with at most 3 devices (from the defaults)
 *    7 days  device_policy.updated  back to monitor-only without a limit
 *    6 days  user.updated           Lola's misspelt last name corrected
 *    5 days  enrollment.removed     Timur's direct enrollment; his group keeps him in the course
 *    1 day   rating.adjusted        Omar's forum bonus (the seeded point event)
 *
 * Timur holds a direct source again today: granting access is not audited ("Content actions").
 * Entries are append-only, so each is written once by its fixed id.
 */
export function audit({ now }) {
  const [, timur, lola, omar] = DEMO.students;
  const ada = DEMO.admin;
  let n = 0x1a01;
  const entry = (daysAgo, action, targetType, targetId, summary, changes) =>
    insertOnce("audit_entries", {
      id: id(n++),
      tenant_id: DEMO.tenantId,
      at: now - daysAgo * DAY_MS,
      actor_id: ada.id,
      actor_role: "admin",
      actor_name: `${ada.firstName} ${ada.lastName}`,
      actor_job: null,
      action,
      target_type: targetType,
      target_id: targetId,
      summary,
      changes: JSON.stringify(changes),
      request_id: null,
    });
  const morning = `group:${DEMO.groupId}`;
  return [
    entry(12, "accommodation.set", "accommodation", omar.id, "Accommodation profile set", {
      time_multiplier: ["1.00", "1.50"],
      extra_time_seconds: [0, 120],
      extra_attempts: [0, 1],
      note: [null, "Demo: extra time by a medical certificate"],
    }),
    entry(9, "device_policy.updated", "device_policy", DEMO.tenantId, "Device policy updated", { mode: ["monitor_only", "enforce"], max_active_devices: [null, 3] }),
    entry(7, "device_policy.updated", "device_policy", DEMO.tenantId, "Device policy updated", { mode: ["enforce", "monitor_only"], max_active_devices: [3, null] }),
    entry(6, "user.updated", "user", lola.id, "User updated", { last_name: ["Studnet", lola.lastName] }),
    entry(5, "enrollment.removed", "enrollment", id(0xe02), "Direct enrollment removed", { sources: [["direct", morning], [morning]] }),
    entry(1, "rating.adjusted", "rating_adjustment", RATING.omarBonus, "Bonus points awarded", {
      student_id: [null, omar.id],
      points: [null, "5.00"],
      reason: [null, "Helped classmates in the forum"],
    }),
  ];
}
