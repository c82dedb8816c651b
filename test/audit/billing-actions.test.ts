import { describe, expect, it } from "vitest";
import { DAY_MS, setClockForTests } from "../../src/core/lib/clock";
import { superadmin } from "../helpers/billing";
import { createSchool } from "../helpers/factories";
import { api } from "../helpers/http";
import { signedIn } from "../helpers/users";
import { auditLog } from "./helpers";

describe("the superadmin's billing actions in the school's log", () => {
  it("activated, extended, suspended, resumed with the state before and after; repeats write none", async () => {
    const now = Date.UTC(2031, 0, 10, 12);
    // A second between the calls: entries of one millisecond have no order among them.
    let clock = now;
    setClockForTests({ now: () => clock });
    const operator = await superadmin();
    const school = await createSchool({ planState: "trial", expiresAt: now + 5 * DAY_MS });
    const admin = await signedIn(school, { role: "admin" });
    const call = (action: string, body: unknown = {}) => {
      clock += 1000;
      return api(`/admin/tenants/${school.id}/${action}`, { token: operator.token, body });
    };
    expect((await call("activate", { title: "Manual", days: 10, amount_cents: 1000 })).status).toBe(200);
    expect((await call("extend", { days: 5 })).status).toBe(200);
    expect((await call("suspend", { reason: "unpaid" })).status).toBe(200);
    expect((await call("suspend", { reason: "unpaid" })).status).toBe(200);
    expect((await call("unsuspend")).status).toBe(200);
    expect((await call("unsuspend")).status).toBe(200);
    const iso = (ms: number) => new Date(ms).toISOString();
    const log = await auditLog(admin, "target_type=school");
    expect(log.entries.map((entry) => [entry.action, entry.target_id, entry.actor, entry.changes])).toEqual([
      ["billing.resumed", school.id, { id: operator.id, role: "superadmin", name: "Test User" }, { plan_state: ["suspended", "paid"], suspended_manually: [true, false] }],
      ["billing.suspended", school.id, { id: operator.id, role: "superadmin", name: "Test User" }, { plan_state: ["paid", "suspended"], suspended_manually: [false, true] }],
      ["billing.extended", school.id, { id: operator.id, role: "superadmin", name: "Test User" }, { expires_at: [iso(now + 15 * DAY_MS), iso(now + 20 * DAY_MS)] }],
      ["billing.activated", school.id, { id: operator.id, role: "superadmin", name: "Test User" }, { plan_state: ["trial", "paid"], expires_at: [iso(now + 5 * DAY_MS), iso(now + 15 * DAY_MS)] }],
    ]);
  });
});
