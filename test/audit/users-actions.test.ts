import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { createUser, db } from "../helpers/factories";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../helpers/users";
import { auditActions, auditLog, auditRows } from "./helpers";

describe("audit entries of user management", () => {
  it("user.created with the new row's fields, the actor and the request id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const res = await as(admin, "/t/users", {
      method: "POST",
      body: { email: "new.one@example.test", password: "long-enough-pass-1", first_name: "Ann", last_name: "Lee", role: "student" },
    });
    expect(res.status).toBe(201);
    const log = await auditLog(admin);
    expect(log.total).toBe(1);
    const [entry] = log.entries;
    expect(entry).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      actor: { id: admin.id, role: "admin", name: "Test User" },
      action: "user.created",
      target_type: "user",
      target_id: res.body.data.id,
      summary: "User created",
      changes: { email: [null, "new.one@example.test"], first_name: [null, "Ann"], last_name: [null, "Lee"], role: [null, "student"] },
      request_id: res.headers.get("x-request-id"),
    });
    expect((await auditRows(school.id)).length).toBe(1);
  });

  it("PUT /t/users/:id: user.updated with the changed fields only; deactivation and reactivation their own entries", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student", firstName: "Bob" });
    expect((await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Rob", last_name: "User" } })).status).toBe(200);
    expect((await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { is_active: false } })).status).toBe(200);
    expect((await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { is_active: true, last_name: "Newer" } })).status).toBe(200);
    expect(await auditActions(admin)).toEqual([
      { action: "user.reactivated", target_id: student.id, changes: { is_active: [false, true] } },
      { action: "user.updated", target_id: student.id, changes: { last_name: ["User", "Newer"] } },
      { action: "user.deactivated", target_id: student.id, changes: { is_active: [true, false] } },
      { action: "user.updated", target_id: student.id, changes: { first_name: ["Bob", "Rob"] } },
    ]);
  });

  it("no entry for a repeated request that changes nothing, a refused one or an unknown user", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student", firstName: "Same" });
    expect((await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Same", is_active: true } })).status).toBe(200);
    expect((await as(admin, `/t/users/${unknownId()}`, { method: "PUT", body: { first_name: "Other" } })).status).toBe(404);
    expect((await as(admin, `/t/users/${admin.id}`, { method: "PUT", body: { is_active: false } })).status).toBe(400);
    expect((await as(admin, `/t/users/${unknownId()}/role`, { method: "PUT", body: { role: "curator" } })).status).toBe(404);
    expect((await as(admin, `/t/users/${student.id}/role`, { method: "PUT", body: { role: "student" } })).status).toBe(200);
    expect((await as(admin, `/t/users/${unknownId()}`, { method: "DELETE" })).status).toBe(404);
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    expect((await as(curator, "/t/users", { method: "POST", body: { email: "x@example.test", password: "long-enough-pass-1", first_name: "Xx", last_name: "Yy", role: "admin" } })).status).toBe(403);
    expect((await as(curator, `/t/users/${student.id}`, { method: "DELETE" })).status).toBe(403);
    expect(await auditRows(school.id)).toEqual([]);
  });

  it("user.role_changed, user.permissions_changed, user.curator_assigned with before and after", async () => {
    const { school, admin } = await schoolWithAdmin();
    const user = await createUser(school.id, { role: "student" });
    const student = await createUser(school.id, { role: "student" });
    expect((await as(admin, `/t/users/${user.id}/role`, { method: "PUT", body: { role: "curator" } })).status).toBe(200);
    const flags = { can_manage_courses: true, can_manage_students: false, can_manage_groups: true, can_view_analytics: true, can_manage_exams: false, can_manage_notifications: false };
    expect((await as(admin, `/t/users/${user.id}/permissions`, { method: "PUT", body: flags })).status).toBe(200);
    // The same flags again change nothing.
    expect((await as(admin, `/t/users/${user.id}/permissions`, { method: "PUT", body: flags })).status).toBe(200);
    expect((await as(admin, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: user.id } })).status).toBe(200);
    expect((await as(admin, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: user.id } })).status).toBe(200);
    expect((await as(admin, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: admin.id } })).status).toBe(400);
    expect((await as(admin, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: null } })).status).toBe(200);
    expect(await auditActions(admin)).toEqual([
      { action: "user.curator_assigned", target_id: student.id, changes: { curator_id: [user.id, null] } },
      { action: "user.curator_assigned", target_id: student.id, changes: { curator_id: [null, user.id] } },
      { action: "user.permissions_changed", target_id: user.id, changes: { can_manage_courses: [false, true], can_manage_groups: [false, true] } },
      { action: "user.role_changed", target_id: user.id, changes: { role: ["student", "curator"] } },
    ]);
  });

  it("permissions of a curator without a set: every flag from null", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator" });
    await db().delete(schema.curatorPermissions).where(eq(schema.curatorPermissions.userId, curator.id));
    const flags = { can_manage_courses: true, can_manage_students: false, can_manage_groups: false, can_view_analytics: false, can_manage_exams: false, can_manage_notifications: false };
    expect((await as(admin, `/t/users/${curator.id}/permissions`, { method: "PUT", body: flags })).status).toBe(200);
    expect(await auditActions(admin)).toEqual([
      {
        action: "user.permissions_changed",
        target_id: curator.id,
        changes: Object.fromEntries(Object.entries(flags).map(([flag, value]) => [flag, [null, value]])),
      },
    ]);
  });

  it("bulk deactivation: one entry per user it turns; the repeat writes none", async () => {
    const { school, admin } = await schoolWithAdmin();
    const a = await createUser(school.id, { role: "student" });
    const b = await createUser(school.id, { role: "student", isActive: false });
    const c = await createUser(school.id, { role: "student" });
    expect((await as(admin, "/t/users/bulk-deactivate", { method: "POST", body: { ids: [a.id, b.id, c.id] } })).status).toBe(200);
    expect((await as(admin, "/t/users/bulk-deactivate", { method: "POST", body: { ids: [a.id, b.id, c.id] } })).status).toBe(200);
    expect((await as(admin, "/t/users/bulk-activate", { method: "POST", body: { ids: [b.id] } })).status).toBe(200);
    const entries = await auditActions(admin);
    expect(entries[0]).toEqual({ action: "user.reactivated", target_id: b.id, changes: { is_active: [false, true] } });
    expect(entries.slice(1).sort((x, y) => x.target_id!.localeCompare(y.target_id!))).toEqual(
      [a.id, c.id].sort().map((id) => ({ action: "user.deactivated", target_id: id, changes: { is_active: [true, false] } })),
    );
    const ids = (await auditRows(school.id)).map((row) => row.id);
    expect(new Set(ids).size).toBe(3);
  });

  it("user.deleted, then user.purged; the purge clears the purged person's name as actor and the changes about them", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await signedIn(school, { role: "admin" });
    const student = await createUser(school.id, { role: "student", firstName: "Gone" });
    expect((await as(other, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Went" } })).status).toBe(200);
    expect((await as(admin, `/t/users/${student.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await as(admin, `/t/users/${student.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await as(admin, `/t/users/${other.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    expect((await as(admin, `/t/users/${student.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    const log = await auditLog(admin);
    expect(log.entries.map((entry) => [entry.action, entry.target_id, entry.actor, entry.changes])).toEqual([
      ["user.purged", student.id, { id: admin.id, role: "admin", name: "Test User" }, {}],
      ["user.purged", other.id, { id: admin.id, role: "admin", name: "Test User" }, {}],
      ["user.deleted", student.id, { id: admin.id, role: "admin", name: "Test User" }, {}],
      ["user.updated", student.id, { id: null, role: "admin", name: null }, {}],
    ]);
  });
});
