import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { createUser, db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { as, schoolWithAdmin, unknownId } from "../helpers/users";

/** Every listed failure of the contract's /t/users endpoints (the gate's are in the gate matrix). */

const PERMISSIONS = {
  can_manage_courses: true,
  can_manage_students: false,
  can_manage_groups: false,
  can_view_analytics: false,
  can_manage_exams: false,
  can_manage_notifications: false,
};

describe("POST /t/users and GET /t/users failures", () => {
  it("POST: 400 email already taken", async () => {
    const { school, admin } = await schoolWithAdmin();
    const existing = await createUser(school.id, { role: "student" });
    const res = await as(admin, "/t/users", { body: { email: existing.email, password: "long-enough-1", first_name: "Ali", last_name: "Valiyev", role: "student" } });
    expect(failure(res)).toEqual({ status: 400, error: "email already taken" });
  });

  it("GET: 400 invalid_params", async () => {
    const { admin } = await schoolWithAdmin();
    expect(failure(await as(admin, "/t/users?limit=abc"))).toEqual({ status: 400, error: "invalid_params" });
  });
});

describe("bulk activation failures", () => {
  for (const action of ["bulk-activate", "bulk-deactivate"]) {
    it(`POST /t/users/${action}: 400 invalid_params and 400 cannot_modify_self`, async () => {
      const { admin } = await schoolWithAdmin();
      expect(failure(await as(admin, `/t/users/${action}`, { body: { ids: [] } }))).toEqual({ status: 400, error: "invalid_params" });
      expect(failure(await as(admin, `/t/users/${action}`, { body: { ids: [admin.id] } }))).toEqual({ status: 400, error: "cannot_modify_self" });
    });
  }
});

describe("GET, PUT and DELETE /t/users/:id failures", () => {
  it("GET: 400 invalid id format and 404 user_not_found", async () => {
    const { admin } = await schoolWithAdmin();
    expect(failure(await as(admin, "/t/users/not-a-uuid"))).toEqual({ status: 400, error: "invalid id format" });
    expect(failure(await as(admin, `/t/users/${unknownId()}`))).toEqual({ status: 404, error: "user_not_found" });
  });

  it("PUT: 400 invalid id format and 404 user not found", async () => {
    const { admin } = await schoolWithAdmin();
    expect(failure(await as(admin, "/t/users/not-a-uuid", { method: "PUT", body: { first_name: "Aziz" } }))).toEqual({ status: 400, error: "invalid id format" });
    expect(failure(await as(admin, `/t/users/${unknownId()}`, { method: "PUT", body: { first_name: "Aziz" } }))).toEqual({ status: 404, error: "user not found" });
  });

  it("DELETE: 400 invalid id format and 400 cannot delete yourself", async () => {
    const { admin } = await schoolWithAdmin();
    expect(failure(await as(admin, "/t/users/not-a-uuid", { method: "DELETE" }))).toEqual({ status: 400, error: "invalid id format" });
    expect(failure(await as(admin, `/t/users/${admin.id}`, { method: "DELETE" }))).toEqual({ status: 400, error: "cannot delete yourself" });
  });

  it("DELETE /permanent: 400 invalid id format, 400 user not found and 400 cannot delete yourself", async () => {
    const { admin } = await schoolWithAdmin();
    expect(failure(await as(admin, "/t/users/not-a-uuid/permanent", { method: "DELETE" }))).toEqual({ status: 400, error: "invalid id format" });
    expect(failure(await as(admin, `/t/users/${unknownId()}/permanent`, { method: "DELETE" }))).toEqual({ status: 400, error: "user not found" });
    expect(failure(await as(admin, `/t/users/${admin.id}/permanent`, { method: "DELETE" }))).toEqual({ status: 400, error: "cannot delete yourself" });
  });
});

describe("PUT /t/users/:id/curator failures", () => {
  it("400 invalid_id_format, invalid_request_body and curator_not_eligible; 404 user_not_found", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const curator = await createUser(school.id, { role: "curator" });
    const put = (id: string, body: unknown) => as(admin, `/t/users/${id}/curator`, { method: "PUT", body });
    expect(failure(await put("not-a-uuid", { curator_id: curator.id }))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await put(student.id, { curator_id: 42 }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await put(student.id, { curator_id: student.id }))).toEqual({ status: 400, error: "curator_not_eligible" });
    expect(failure(await put(unknownId(), { curator_id: curator.id }))).toEqual({ status: 404, error: "user_not_found" });
  });
});

describe("PUT /t/users/:id/role failures", () => {
  it("400 invalid id format and validation error; 404 user not found", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const put = (id: string, body: unknown) => as(admin, `/t/users/${id}/role`, { method: "PUT", body });
    expect(failure(await put("not-a-uuid", { role: "curator" }))).toEqual({ status: 400, error: "invalid id format" });
    expect(failure(await put(student.id, { role: "superadmin" }))).toEqual({ status: 400, error: "validation error" });
    expect(failure(await put(unknownId(), { role: "curator" }))).toEqual({ status: 404, error: "user not found" });
  });
});

describe("GET and PUT /t/users/:id/permissions failures", () => {
  it("GET: 400 invalid id format, user is not a curator and permissions not found", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const curator = await createUser(school.id, { role: "curator" });
    await db().delete(schema.curatorPermissions).where(eq(schema.curatorPermissions.userId, curator.id));
    expect(failure(await as(admin, "/t/users/not-a-uuid/permissions"))).toEqual({ status: 400, error: "invalid id format" });
    expect(failure(await as(admin, `/t/users/${student.id}/permissions`))).toEqual({ status: 400, error: "user is not a curator" });
    expect(failure(await as(admin, `/t/users/${curator.id}/permissions`))).toEqual({ status: 400, error: "permissions not found" });
  });

  it("PUT: 400 invalid id format and user is not a curator", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const put = (id: string) => as(admin, `/t/users/${id}/permissions`, { method: "PUT", body: PERMISSIONS });
    expect(failure(await put("not-a-uuid"))).toEqual({ status: 400, error: "invalid id format" });
    expect(failure(await put(student.id))).toEqual({ status: 400, error: "user is not a curator" });
  });
});
