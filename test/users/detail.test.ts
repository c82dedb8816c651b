import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { getConfig } from "../../src/core/env";
import { mediaLinkSignature } from "../../src/platform/media/links";
import { createSchool, createUser } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import {
  addMember,
  as,
  assignIndividualCurator,
  createGroup,
  curatorWith,
  schoolWithAdmin,
  sessionRow,
  signedIn,
  unknownId,
  userRow,
} from "../helpers/users";
import { storedImage } from "../media/helpers";

describe("GET /t/users/:id", () => {
  it("answers one user with groups and individual curator fields", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const res = await as(admin, `/t/users/${student.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: student.id,
      email: student.email,
      role: "student",
      group_count: 0,
      groups: [],
      individual_curator_id: null,
      individual_curator_first_name: null,
      individual_curator_last_name: null,
      individual_curator_email: null,
    });
    const upper = await as(admin, `/t/users/${student.id.toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect(upper.body.data.id).toBe(student.id);
  });

  it("answers exactly the user fields plus group_count, groups in join order and the individual curator", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator", firstName: "Nodira" });
    const student = await createUser(school.id, { role: "student", firstName: "Jasur" });
    await assignIndividualCurator(student.id, curator.id);
    const second = await createGroup(school.id, { name: "Second", logo: "https://cdn.example.com/second.png" });
    const first = await createGroup(school.id, { name: "First" });
    await addMember(second, student.id, Date.now());
    await addMember(first, student.id, Date.now() - 60_000);

    const res = await as(admin, `/t/users/${student.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: student.id,
        tenant_id: school.id,
        email: student.email,
        first_name: "Jasur",
        last_name: "User",
        avatar: null,
        role: "student",
        is_active: true,
        last_active_at: null,
        created_at: new Date(student.createdAt).toISOString(),
        updated_at: new Date(student.updatedAt).toISOString(),
        group_count: 2,
        groups: [
          { group_id: first.id, name: "First", logo: null },
          { group_id: second.id, name: "Second", logo: "https://cdn.example.com/second.png" },
        ],
        individual_curator_id: curator.id,
        individual_curator_first_name: "Nodira",
        individual_curator_last_name: "User",
        individual_curator_email: curator.email,
      },
    });
  });

  it("answers 403 `forbidden` to a curator who has other permissions but not manage_students", async () => {
    const school = await createSchool();
    const student = await createUser(school.id, { role: "student" });
    const curator = await signedIn(
      school,
      curatorWith({ can_manage_groups: true, can_manage_courses: true, can_view_analytics: true, can_manage_exams: true, can_manage_notifications: true }),
    );
    expect(failure(await as(curator, `/t/users/${student.id}`))).toEqual({ status: 403, error: "forbidden" });
  });

  it("answers 400 `invalid id format`, 404 `user_not_found` (other school, deleted, unknown) and 403 `forbidden`", async () => {
    const { school, admin } = await schoolWithAdmin();
    const bad = await as(admin, "/t/users/not-a-uuid");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid id format");

    const foreign = await createUser((await createSchool()).id, { role: "student" });
    const deleted = await createUser(school.id, { role: "student" });
    await as(admin, `/t/users/${deleted.id}`, { method: "DELETE" });
    for (const id of [foreign.id, deleted.id, unknownId()]) {
      const res = await as(admin, `/t/users/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("user_not_found");
    }

    const student = await signedIn(school, { role: "student" });
    const denied = await as(student, `/t/users/${admin.id}`);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("forbidden");
  });
});

describe("PUT /t/users/:id", () => {
  it("updates names, avatar and is_active and answers the user object", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const res = await as(admin, `/t/users/${student.id}`, {
      method: "PUT",
      body: { first_name: "  Dilnoza ", last_name: "Karimova", avatar: "https://cdn.example.com/me.png" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: student.id,
      tenant_id: school.id,
      email: student.email,
      first_name: "Dilnoza",
      last_name: "Karimova",
      avatar: "https://cdn.example.com/me.png",
      role: "student",
      is_active: true,
      last_active_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const cleared = await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { avatar: null } });
    expect(cleared.body.data.avatar).toBeNull();
    const unchanged = await as(admin, `/t/users/${student.id}`, { method: "PUT" });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.data.first_name).toBe("Dilnoza");
  });

  it("stores a media-asset avatar as its id and reads it as a signed, expiring download link", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const assetId = await storedImage(school.id);
    const res = await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { avatar: assetId.toUpperCase() } });
    expect(res.status).toBe(200);
    expect((await userRow(student.id))!.avatar).toBe(assetId);
    const link = new URL(res.body.data.avatar, "https://api.lms.localhost");
    expect(link.pathname).toBe(`/api/v1/media/${assetId}/download`);
    const exp = Number(link.searchParams.get("exp"));
    expect(exp).toBeGreaterThan(Date.now() / 1000);
    expect(exp).toBeLessThanOrEqual(Date.now() / 1000 + 3600 + 1);
    const expected = await mediaLinkSignature(getConfig(env).jwtKeys[0]!.secret, school.id, assetId, exp);
    expect(link.searchParams.get("sig")).toBe(expected);
    const detail = await as(admin, `/t/users/${student.id}`);
    expect(detail.body.data.avatar).toMatch(new RegExp(`^https://api\\.lms\\.localhost/api/v1/media/${assetId}/download\\?exp=\\d+&sig=[0-9a-f]{64}$`));
    // The link serves the image.
    const image = await SELF.fetch(detail.body.data.avatar);
    expect([image.status, image.headers.get("content-type")]).toEqual([200, "image/png"]);
    await image.body?.cancel();
  });

  it("deactivation revokes the user's sessions at once", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    expect((await as(student, "/t/me/profile")).status).toBe(200);
    const res = await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { is_active: false } });
    expect(res.status).toBe(200);
    expect(res.body.data.is_active).toBe(false);
    expect((await sessionRow(student.sessionId))!.revokedAt).not.toBeNull();
    expect(failure(await as(student, "/t/me/profile"))).toEqual({ status: 401, error: "unauthorized" });
  });

  it("answers 400 for bad input, 400 `cannot_modify_self` for self-deactivation, 404 `user not found` and 403 `forbidden`", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    for (const body of [{ first_name: "A" }, { last_name: " B " }, { avatar: "http://insecure.example.com/a.png" }, { avatar: "not a url" }, { is_active: "no" }]) {
      const res = await as(admin, `/t/users/${student.id}`, { method: "PUT", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("invalid_request_body");
    }
    const bad = await as(admin, "/t/users/123", { method: "PUT", body: {} });
    expect(failure(bad)).toEqual({ status: 400, error: "invalid id format" });

    const self = await as(admin, `/t/users/${admin.id}`, { method: "PUT", body: { is_active: false } });
    expect(self.status).toBe(400);
    expect(self.body.error).toBe("cannot_modify_self");
    expect((await as(admin, `/t/users/${admin.id}`, { method: "PUT", body: { first_name: "Self" } })).status).toBe(200);

    const foreign = await createUser((await createSchool()).id, { role: "student" });
    for (const id of [foreign.id, unknownId()]) {
      const res = await as(admin, `/t/users/${id}`, { method: "PUT", body: { first_name: "Nope" } });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("user not found");
    }
    expect((await userRow(foreign.id))!.firstName).toBe("Test");

    const curator = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const denied = await as(curator, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Nope" } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("forbidden");
  });
});

describe("DELETE /t/users/:id", () => {
  it("soft-deletes: the user disappears from reads, their sessions end and the email is free again", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const res = await as(admin, `/t/users/${student.id}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: true } });
    expect((await userRow(student.id))!.deletedAt).not.toBeNull();
    expect((await as(admin, `/t/users/${student.id}`)).status).toBe(404);
    expect((await sessionRow(student.sessionId))!.revokedAt).not.toBeNull();
    expect(failure(await as(student, "/t/me/profile"))).toEqual({ status: 401, error: "unauthorized" });
    const again = await as(admin, `/t/users/${student.id}`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe("user not found");
  });

  it("answers 400 `invalid id format`, 400 `cannot delete yourself`, 404 for another school and 403 `forbidden`", async () => {
    const { school, admin } = await schoolWithAdmin();
    expect(failure(await as(admin, "/t/users/xyz", { method: "DELETE" }))).toEqual({ status: 400, error: "invalid id format" });
    const self = await as(admin, `/t/users/${admin.id.toUpperCase()}`, { method: "DELETE" });
    expect(self.status).toBe(400);
    expect(self.body.error).toBe("cannot delete yourself");

    const foreign = await createUser((await createSchool()).id, { role: "student" });
    const cross = await as(admin, `/t/users/${foreign.id}`, { method: "DELETE" });
    expect(cross.status).toBe(404);
    expect((await userRow(foreign.id))!.deletedAt).toBeNull();

    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const denied = await as(curator, `/t/users/${admin.id}`, { method: "DELETE" });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("forbidden");
  });

  it("needs the school header: 401 `unauthorized` without it", async () => {
    const { admin } = await schoolWithAdmin();
    const res = await api(`/t/users/${admin.id}`, { token: admin.token });
    expect(failure(res)).toEqual({ status: 401, error: "unauthorized" });
  });
});
