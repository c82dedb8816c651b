import { describe, expect, it } from "vitest";
import { usersRoutes } from "../../src/platform/users/routes";
import { createSchool, login } from "../helpers/factories";
import { failure } from "../helpers/http";
import { as, sessionRow, signedIn } from "../helpers/users";

describe("POST /t/me/password to the same password", () => {
  it("answers 400 `same_password` with the envelope, and changes nothing: the password and the other sessions stay", async () => {
    const school = await createSchool();
    const member = await signedIn(school, { role: "student" });
    const other = await login({ email: member.email, password: member.password }, { subdomain: school.subdomain });
    const res = await as(member, "/t/me/password", { body: { current_password: member.password, new_password: member.password } });
    expect(failure(res)).toEqual({ status: 400, error: "same_password" });
    expect(res.body.message).toBe("The new password must differ from the current one.");
    await expect(login({ email: member.email, password: member.password }, { subdomain: school.subdomain })).resolves.toMatchObject({ token: expect.any(String) });
    expect((await sessionRow(other.session_id))?.revokedAt).toBeNull();
  });

  it("checks the current password first: a wrong one keeps its own answer even when both fields are equal", async () => {
    const school = await createSchool();
    const member = await signedIn(school, { role: "admin" });
    const res = await as(member, "/t/me/password", { body: { current_password: "not-the-password", new_password: "not-the-password" } });
    expect(failure(res)).toEqual({ status: 400, error: "invalid current password" });
  });

  it("does not count towards the current-password lock: the seventh same-password try still answers `same_password`", async () => {
    const school = await createSchool();
    const member = await signedIn(school, { role: "curator" });
    for (let i = 0; i < 7; i++) {
      const res = await as(member, "/t/me/password", { body: { current_password: member.password, new_password: member.password } });
      expect({ attempt: i, ...failure(res) }).toEqual({ attempt: i, status: 400, error: "same_password" });
    }
    const changed = await as(member, "/t/me/password", { body: { current_password: member.password, new_password: "a-different-secret" } });
    expect(changed.status).toBe(200);
  });

  it("compares the passwords exactly: a new password differing only in case or surrounding spaces is a change", async () => {
    const school = await createSchool();
    const member = await signedIn(school, { role: "student" });
    const upper = member.password.toUpperCase();
    const res = await as(member, "/t/me/password", { body: { current_password: member.password, new_password: upper } });
    expect(res.status).toBe(200);
    const spaced = await as(member, "/t/me/password", { body: { current_password: upper, new_password: ` ${upper} ` } });
    expect(spaced.status).toBe(200);
  });

  it("documents `same_password` on the route", () => {
    const doc = usersRoutes.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "users", version: "1" } });
    const paths = doc.paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    expect(paths["/t/me/password"]!.post!.responses["400"]!.description).toContain("`same_password`");
  });
});
