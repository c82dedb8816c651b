import { describe, expect, it } from "vitest";
import { schoolWithAdmin, as, signedIn, curatorWith } from "../helpers/users";
import { auditActions, auditLog } from "./helpers";

describe("audit entries of the school, its push events and campaigns", () => {
  it("PATCH /t/tenant: branding and settings as two entries; a repeat writes none", async () => {
    const { school, admin } = await schoolWithAdmin();
    const body = { title: "Bright School", color_scheme: "#112233", hide_assignments: true, timezone: "America/New_York" };
    expect((await as(admin, "/t/tenant", { method: "PATCH", body })).status).toBe(200);
    expect((await as(admin, "/t/tenant", { method: "PATCH", body })).status).toBe(200);
    const entries = await auditActions(admin);
    expect(entries).toEqual([
      { action: "school.settings_updated", target_id: school.id, changes: { hide_assignments: [false, true], timezone: [expect.any(String), "America/New_York"] } },
      { action: "school.branding_updated", target_id: school.id, changes: { title: [expect.any(String), "Bright School"], color_scheme: [expect.any(String), "#112233"] } },
    ]);
  });

  it("notification_event.updated with the override before and after; the same value again writes none", async () => {
    const { admin } = await schoolWithAdmin();
    const path = "/t/notifications/admin/events/account.role_changed";
    expect((await as(admin, path, { method: "PATCH", body: { enabled: false } })).status).toBe(200);
    expect((await as(admin, path, { method: "PATCH", body: { enabled: false } })).status).toBe(200);
    expect((await as(admin, path, { method: "PATCH", body: { enabled: true, title_template: "Role: {{role}}" } })).status).toBe(200);
    expect((await as(admin, "/t/notifications/admin/events/no.such_event", { method: "PATCH", body: { enabled: false } })).status).toBe(404);
    expect(await auditActions(admin)).toEqual([
      { action: "notification_event.updated", target_id: "account.role_changed", changes: { enabled: [false, true], title_template: [null, "Role: {{role}}"] } },
      { action: "notification_event.updated", target_id: "account.role_changed", changes: { enabled: [null, false] } },
    ]);
  });

  it("campaign.created and campaign.cancelled; cancelling again (409) writes none", async () => {
    const { school, admin } = await schoolWithAdmin();
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const created = await as(admin, "/t/notifications/admin/campaigns", {
      method: "POST",
      body: { title: "Exam week", body: "Good luck!", filter: { match: "all", rules: [] }, scheduled_at: scheduledAt },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.campaign.id;
    expect((await as(admin, `/t/notifications/admin/campaigns/${id}/cancel`, { method: "POST" })).status).toBe(200);
    expect((await as(admin, `/t/notifications/admin/campaigns/${id}/cancel`, { method: "POST" })).status).toBe(409);
    const curator = await signedIn(school, curatorWith({ can_manage_notifications: false }));
    expect((await as(curator, `/t/notifications/admin/campaigns/${id}/cancel`, { method: "POST" })).status).toBe(403);
    expect(await auditActions(admin)).toEqual([
      { action: "campaign.cancelled", target_id: id, changes: { status: ["scheduled", "cancelled"] } },
      { action: "campaign.created", target_id: id, changes: { title: [null, "Exam week"], status: [null, "scheduled"], scheduled_at: [null, new Date(Date.parse(scheduledAt)).toISOString()] } },
    ]);
    expect((await auditLog(admin, "target_type=campaign")).total).toBe(2);
  });
});
