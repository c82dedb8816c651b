import { SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import * as schema from "../../src/db/schema";
import { createUser, db, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { as, unknownId } from "../helpers/users";
import { mediaSchool, storedImage } from "./helpers";

const LINK = (id: string) => new RegExp(`^https://api\\.lms\\.localhost/api/v1/media/${id}/download\\?exp=\\d+&sig=[0-9a-f]{64}$`);

async function fetchLink(link: string) {
  const response = await SELF.fetch(link);
  await response.body?.cancel();
  return { status: response.status, type: response.headers.get("content-type") };
}

/** Asset ids an image field must refuse for `school`: pending, failed, deleted, a pdf, another school's, unknown. */
async function refusedIds(schoolId: string) {
  const other = await mediaSchool();
  const deleted = await storedImage(schoolId);
  await db().update(schema.mediaAssets).set({ deletedAt: Date.now() }).where(eq(schema.mediaAssets.id, deleted));
  return {
    pending: await storedImage(schoolId, { status: "pending" }),
    failed: await storedImage(schoolId, { status: "failed" }),
    deleted,
    pdf: await storedImage(schoolId, { kind: "pdf" }),
    otherSchool: await storedImage(other.school.id),
    unknown: unknownId(),
  };
}

describe("avatars and logos given as media-asset ids", () => {
  it("PATCH /t/me/profile: an avatar asset must be a confirmed image of the school (else 400 invalid_request_body); reads give a fresh link that serves it", async () => {
    const { school, student } = await mediaSchool();
    for (const [why, id] of Object.entries(await refusedIds(school.id))) {
      const res = await as(student, "/t/me/profile", { method: "PATCH", body: { avatar: id } });
      expect({ why, ...failure(res) }).toEqual({ why, status: 400, error: "invalid_request_body" });
      expect(res.body.details).toEqual([{ path: "avatar", message: "must be a confirmed image of this school" }]);
    }
    expect((await db().select().from(schema.users).where(eq(schema.users.id, student.id)))[0]!.avatar).toBeNull();

    const image = await storedImage(school.id);
    const res = await as(student, "/t/me/profile", { method: "PATCH", body: { avatar: image } });
    expect(res.status).toBe(200);
    expect(res.body.data.avatar).toMatch(LINK(image));
    expect(await fetchLink(res.body.data.avatar)).toEqual({ status: 200, type: "image/png" });
    // Every read signs anew: ten minutes later the profile hands out a link valid an hour from then.
    const exp = (link: string) => Number(new URL(link, "https://api.lms.localhost").searchParams.get("exp"));
    const later = Date.now() + 600_000;
    setClockForTests({ now: () => later });
    const fresh = (await as(student, "/t/me/profile")).body.data.avatar as string;
    expect(exp(fresh)).toBeGreaterThanOrEqual(exp(res.body.data.avatar) + 599);
    // URLs and null are unaffected.
    setClockForTests(null);
    expect((await as(student, "/t/me/profile", { method: "PATCH", body: { avatar: "https://cdn.example.com/a.png" } })).body.data.avatar).toBe(
      "https://cdn.example.com/a.png",
    );
  });

  it("PUT /t/users/:id: the same rule for the avatar an admin sets", async () => {
    const { school, admin, student } = await mediaSchool();
    const refused = await refusedIds(school.id);
    for (const id of [refused.otherSchool, refused.pdf, refused.pending]) {
      expect(failure(await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { avatar: id } }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    const image = await storedImage(school.id);
    const res = await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { avatar: image } });
    expect(res.status).toBe(200);
    expect(res.body.data.avatar).toMatch(LINK(image));
  });

  it("PATCH /t/tenant and PUT /admin/tenants/:id: a logo asset must be a confirmed image of that school (else 400 validation error)", async () => {
    const { school, admin } = await mediaSchool();
    const refused = await refusedIds(school.id);
    for (const id of [refused.otherSchool, refused.pdf, refused.failed, refused.unknown]) {
      const res = await as(admin, "/t/tenant", { method: "PATCH", body: { logo: id } });
      expect(failure(res)).toEqual({ status: 400, error: "validation error" });
      expect(res.body.details).toEqual([{ path: "logo", message: "must be a confirmed image of this school" }]);
    }
    const logo = await storedImage(school.id);
    const own = await as(admin, "/t/tenant", { method: "PATCH", body: { logo } });
    expect(own.status).toBe(200);
    expect(own.body.data.logo).toMatch(LINK(logo));
    const branding = await api(`/public/tenant?subdomain=${school.subdomain}`);
    expect(await fetchLink(branding.body.data.logo)).toEqual({ status: 200, type: "image/png" });

    const superadmin = await createUser(null, { role: "superadmin" });
    const { token } = await login(superadmin, { subdomain: "" });
    expect(failure(await api(`/admin/tenants/${school.id}`, { method: "PUT", token, body: { logo: refused.otherSchool } }))).toEqual({
      status: 400,
      error: "validation error",
    });
    const another = await storedImage(school.id);
    expect((await api(`/admin/tenants/${school.id}`, { method: "PUT", token, body: { logo: another } })).body.data.logo).toMatch(LINK(another));
    // A school being created has no files yet: only a URL can be its logo.
    const slug = `m${Date.now().toString(36)}`;
    expect(failure(await api("/admin/tenants", { token, body: { title: "Media School", slug, subdomain: slug, logo: another } }))).toEqual({
      status: 400,
      error: "validation error",
    });
  });
});
