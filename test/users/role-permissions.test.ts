import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { createSchool, createUser, db } from "../helpers/factories";
import { failure } from "../helpers/http";
import {
  addGroupCurator,
  as,
  assignIndividualCurator,
  createGroup,
  curatorWith,
  permissionsRow,
  schoolWithAdmin,
  signedIn,
  unknownId,
  userRow,
} from "../helpers/users";

const ALL_FALSE = {
  can_manage_courses: false,
  can_manage_students: false,
  can_manage_groups: false,
  can_view_analytics: false,
  can_manage_exams: false,
  can_manage_notifications: false,
};
const DEFAULTS = { ...ALL_FALSE, can_view_analytics: true };

describe("PUT /t/users/:id/role", () => {
  it("404 for a deleted curator changes nothing: the assignments to them stay", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator" });
    const student = await createUser(school.id, { role: "student" });
    const group = await createGroup(school.id);
    await addGroupCurator(group, curator.id);
    await assignIndividualCurator(student.id, curator.id);
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, curator.id));
    const res = await as(admin, `/t/users/${curator.id}/role`, { method: "PUT", body: { role: "student" } });
    expect(res.status).toBe(404);
    expect((await userRow(student.id))!.individualCuratorId).toBe(curator.id);
    expect(await db().select().from(schema.groupCurators).where(eq(schema.groupCurators.curatorId, curator.id))).toHaveLength(1);
  });

  it("makes a student a curator with the default permission set and answers the user with permissions", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const res = await as(admin, `/t/users/${student.id}/role`, { method: "PUT", body: { role: "curator" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: student.id,
        tenant_id: school.id,
        email: student.email,
        first_name: "Test",
        last_name: "User",
        avatar: null,
        role: "curator",
        is_active: true,
        last_active_at: null,
        created_at: new Date(student.createdAt).toISOString(),
        updated_at: expect.any(String),
        permissions: { id: expect.any(String), user_id: student.id, ...DEFAULTS, created_at: expect.any(String), updated_at: expect.any(String) },
      },
    });
  });

  it("keeps an existing set when a former curator returns, and drops their assignments when they leave the role", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, curatorWith({ can_manage_exams: true }));
    const student = await createUser(school.id, { role: "student" });
    await assignIndividualCurator(student.id, curator.id);
    const group = await createGroup(school.id);
    await addGroupCurator(group, curator.id);

    const demoted = await as(admin, `/t/users/${curator.id}/role`, { method: "PUT", body: { role: "student" } });
    expect(demoted.status).toBe(200);
    expect(demoted.body.data).toMatchObject({ role: "student", permissions: null });
    expect((await userRow(student.id))!.individualCuratorId).toBeNull();
    expect(await db().select().from(schema.groupCurators).where(eq(schema.groupCurators.curatorId, curator.id))).toEqual([]);

    const back = await as(admin, `/t/users/${curator.id}/role`, { method: "PUT", body: { role: "curator" } });
    expect(back.body.data.permissions).toMatchObject({ ...ALL_FALSE, can_manage_exams: true });
  });

  it("takes effect on the user's next request", async () => {
    const { school, admin } = await schoolWithAdmin();
    const member = await signedIn(school, { role: "student" });
    expect((await as(member, "/t/users")).status).toBe(403);
    await as(admin, `/t/users/${member.id}/role`, { method: "PUT", body: { role: "admin" } });
    expect((await as(member, "/t/users")).status).toBe(200);
    await as(admin, `/t/users/${member.id}/role`, { method: "PUT", body: { role: "student" } });
    expect((await as(member, "/t/users")).status).toBe(403);
  });

  it("answers 400 `invalid id format`, 400 `validation error`, 400 `cannot_modify_self`, 404 `user not found` and 403 `forbidden`", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    expect(failure(await as(admin, "/t/users/nope/role", { method: "PUT", body: { role: "admin" } }))).toEqual({ status: 400, error: "invalid id format" });
    for (const body of [{ role: "superadmin" }, {}, { role: null }]) {
      const res = await as(admin, `/t/users/${student.id}/role`, { method: "PUT", body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation error");
    }
    const malformed = await as(admin, `/t/users/${student.id}/role`, { method: "PUT", raw: "{" });
    expect(failure(malformed)).toEqual({ status: 400, error: "validation error" });

    const self = await as(admin, `/t/users/${admin.id}/role`, { method: "PUT", body: { role: "student" } });
    expect(self.status).toBe(400);
    expect(self.body.error).toBe("cannot_modify_self");

    const foreign = await createUser((await createSchool()).id, { role: "student" });
    for (const id of [foreign.id, unknownId()]) {
      const res = await as(admin, `/t/users/${id}/role`, { method: "PUT", body: { role: "curator" } });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("user not found");
    }
    expect((await userRow(foreign.id))!.role).toBe("student");
    expect(await permissionsRow(foreign.id)).toBeUndefined();

    const curator = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const denied = await as(curator, `/t/users/${student.id}/role`, { method: "PUT", body: { role: "admin" } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("forbidden");
  });
});

describe("GET and PUT /t/users/:id/permissions", () => {
  it("reads and replaces a curator's six flags; the change applies to the curator's next request", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await signedIn(school, { role: "curator" });
    const read = await as(admin, `/t/users/${curator.id}/permissions`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      id: expect.any(String),
      user_id: curator.id,
      ...ALL_FALSE,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await as(curator, "/t/users")).status).toBe(403);

    const flags = { ...ALL_FALSE, can_manage_students: true, can_manage_notifications: true };
    const put = await as(admin, `/t/users/${curator.id}/permissions`, { method: "PUT", body: flags });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      success: true,
      data: { id: read.body.data.id, user_id: curator.id, ...flags, created_at: read.body.data.created_at, updated_at: expect.any(String) },
    });
    expect((await as(curator, "/t/users")).status).toBe(200);

    await as(admin, `/t/users/${curator.id}/permissions`, { method: "PUT", body: ALL_FALSE });
    expect((await as(curator, "/t/users")).status).toBe(403);
  });

  it("creates the set on PUT when the curator has none, while GET answers 400 `permissions not found`", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator" });
    await db().delete(schema.curatorPermissions).where(eq(schema.curatorPermissions.userId, curator.id));
    const missing = await as(admin, `/t/users/${curator.id}/permissions`);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("permissions not found");
    const put = await as(admin, `/t/users/${curator.id}/permissions`, { method: "PUT", body: DEFAULTS });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject(DEFAULTS);
    expect((await as(admin, `/t/users/${curator.id}/permissions`)).status).toBe(200);
  });

  it("answers 400 `user is not a curator`, `invalid id format`, `invalid_request_body`, 404 for another school and 403 `forbidden`", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    for (const method of ["GET", "PUT"]) {
      const res = await as(admin, `/t/users/${student.id}/permissions`, { method, body: method === "PUT" ? DEFAULTS : undefined });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("user is not a curator");
      const badId = await as(admin, "/t/users/1/permissions", { method, body: method === "PUT" ? DEFAULTS : undefined });
      expect({ method, ...failure(badId) }).toEqual({ method, status: 400, error: "invalid id format" });
    }
    expect(await permissionsRow(student.id)).toBeUndefined();

    const curator = await createUser(school.id, { role: "curator" });
    const partial = await as(admin, `/t/users/${curator.id}/permissions`, { method: "PUT", body: { can_manage_courses: true } });
    expect(partial.status).toBe(400);
    expect(partial.body.error).toBe("invalid_request_body");

    const foreign = await createUser((await createSchool()).id, { role: "curator" });
    for (const method of ["GET", "PUT"]) {
      const res = await as(admin, `/t/users/${foreign.id}/permissions`, { method, body: method === "PUT" ? DEFAULTS : undefined });
      expect(res.status).toBe(404);
    }
    expect(await permissionsRow(foreign.id)).toMatchObject({ canViewAnalytics: false });

    const manager = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const denied = await as(manager, `/t/users/${curator.id}/permissions`);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("forbidden");
  });

  it("answers PUT with 403 `forbidden` to a curator, even for their own set, and changes nothing", async () => {
    const { school } = await schoolWithAdmin();
    const manager = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const all = { ...ALL_FALSE, can_manage_courses: true, can_manage_students: true, can_manage_groups: true, can_view_analytics: true, can_manage_exams: true, can_manage_notifications: true };
    for (const target of [manager.id, (await createUser(school.id, { role: "curator" })).id]) {
      const res = await as(manager, `/t/users/${target}/permissions`, { method: "PUT", body: all });
      expect(failure(res)).toEqual({ status: 403, error: "forbidden" });
    }
    expect(await permissionsRow(manager.id)).toMatchObject({ canManageCourses: false, canViewAnalytics: false, canManageNotifications: false });
  });
});
