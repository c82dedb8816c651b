import { describe, expect, it } from "vitest";
import { createSchool, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { as, curatorWith, listIds, outboxFor, permissionsRow, schoolWithAdmin, signedIn, userRow } from "../helpers/users";

const newUser = (overrides: Record<string, unknown> = {}) => ({
  email: `New.User.${Math.random().toString(36).slice(2, 10)}@Example.TEST`,
  password: "a-secret-password",
  first_name: "Alisher",
  last_name: "Navoiy",
  role: "student",
  ...overrides,
});

describe("POST /t/users", () => {
  it("creates a student, answers the user object and queues a welcome email with the school link and no password", async () => {
    const { school, admin } = await schoolWithAdmin();
    const body = newUser();
    const res = await as(admin, "/t/users", { body });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenant_id: school.id,
        email: body.email.toLowerCase(),
        first_name: "Alisher",
        last_name: "Navoiy",
        avatar: null,
        role: "student",
        is_active: true,
        last_active_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });

    const emails = await outboxFor(school.id, body.email.toLowerCase());
    expect(emails).toHaveLength(1);
    const email = emails[0]!;
    expect(email.kind).toBe("welcome");
    expect(email.meta).toEqual({ login_url: `http://${school.subdomain}.lms.localhost/login` });
    for (const part of [email.subject, email.textBody, email.htmlBody]) expect(part).not.toContain(body.password);
    expect(email.textBody).toContain(`${school.subdomain}.lms.localhost/login`);

    // The admin hands the password over; it works for signing in.
    await expect(login({ email: body.email.toLowerCase(), password: body.password }, { subdomain: school.subdomain })).resolves.toMatchObject({
      token: expect.any(String),
    });
  });

  it("sends admins and curators the main-domain link and gives a new curator the default permissions", async () => {
    const { school, admin } = await schoolWithAdmin();
    for (const role of ["admin", "curator"] as const) {
      const body = newUser({ role });
      const res = await as(admin, "/t/users", { body });
      expect(res.status).toBe(201);
      expect(res.body.data.role).toBe(role);
      const [email] = await outboxFor(school.id, body.email.toLowerCase());
      expect(email!.meta).toEqual({ login_url: "http://lms.localhost/login" });
      const permissions = await permissionsRow(res.body.data.id);
      if (role === "admin") expect(permissions).toBeUndefined();
      else
        expect(permissions).toMatchObject({
          canManageCourses: false,
          canManageStudents: false,
          canManageGroups: false,
          canViewAnalytics: true,
          canManageExams: false,
          canManageNotifications: false,
        });
    }
  });

  it("answers 400 `email already taken` for an address of the school in any case, but not for another school or a deleted user", async () => {
    const { school, admin } = await schoolWithAdmin();
    const body = newUser();
    expect((await as(admin, "/t/users", { body })).status).toBe(201);
    const again = await as(admin, "/t/users", { body: { ...body, email: body.email.toUpperCase() } });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ success: false, error: "email already taken" });
    expect(await outboxFor(school.id, body.email.toLowerCase())).toHaveLength(1);

    const other = await schoolWithAdmin();
    expect((await as(other.admin, "/t/users", { body })).status).toBe(201);

    const [created] = await listIds(admin, `&q=${encodeURIComponent(body.email.toLowerCase())}`);
    expect((await as(admin, `/t/users/${created}`, { method: "DELETE" })).status).toBe(200);
    expect((await as(admin, "/t/users", { body })).status).toBe(201);
  });

  it("answers 400 `invalid_request_body` for bad input", async () => {
    const { admin } = await schoolWithAdmin();
    const bad = [
      newUser({ password: "short" }),
      newUser({ role: "superadmin" }),
      newUser({ email: "not-an-email" }),
      { email: "x@example.test", password: "long-enough" },
      newUser({ first_name: "" }),
    ];
    for (const body of bad) {
      const res = await as(admin, "/t/users", { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("invalid_request_body");
    }
    const malformed = await as(admin, "/t/users", { raw: "{not json" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe("invalid_request_body");
  });

  it("answers 403 `forbidden` without manage_students, and lets curators create students only", async () => {
    const school = await createSchool();
    const student = await signedIn(school, { role: "student" });
    const plainCurator = await signedIn(school, curatorWith({ can_view_analytics: true }));
    for (const caller of [student, plainCurator]) {
      const res = await as(caller, "/t/users", { body: newUser() });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("forbidden");
    }
    const manager = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    for (const role of ["admin", "curator"]) {
      const res = await as(manager, "/t/users", { body: newUser({ role }) });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("forbidden");
    }
    expect((await as(manager, "/t/users", { body: newUser() })).status).toBe(201);
  });

  it("assigns a restricted curator's new student to that curator, so it stays in their scope", async () => {
    const school = await createSchool();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const res = await as(curator, "/t/users", { body: newUser() });
    expect(res.status).toBe(201);
    expect((await userRow(res.body.data.id))!.individualCuratorId).toBe(curator.id);
    expect(await listIds(curator)).toEqual([res.body.data.id]);
    const detail = await as(curator, `/t/users/${res.body.data.id}`);
    expect(detail.body.data).toMatchObject({ individual_curator_id: curator.id, individual_curator_email: curator.email });
  });

  it("needs a token: 401 `unauthorized` without one", async () => {
    const { school } = await schoolWithAdmin();
    const res = await api("/t/users", { body: newUser(), tenant: school.subdomain });
    expect(failure(res)).toEqual({ status: 401, error: "unauthorized" });
  });
});
