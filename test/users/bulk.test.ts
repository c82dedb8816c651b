import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../helpers/factories";
import { failure } from "../helpers/http";
import { as, curatorWith, schoolWithAdmin, sessionRow, signedIn, unknownId, userRow } from "../helpers/users";

describe("POST /t/users/bulk-activate and /bulk-deactivate", () => {
  it("deactivates and activates idempotently, revoking the sessions of deactivated users at once", async () => {
    const { school, admin } = await schoolWithAdmin();
    const first = await signedIn(school, { role: "student" });
    const second = await signedIn(school, { role: "curator" });
    const ids = [first.id, second.id];

    const off = await as(admin, "/t/users/bulk-deactivate", { body: { ids } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ success: true, data: { affected: 2, skipped: 0, skipped_details: [] } });
    for (const member of [first, second]) {
      expect((await userRow(member.id))!.isActive).toBe(false);
      expect((await sessionRow(member.sessionId))!.revokedAt).not.toBeNull();
      expect(failure(await as(member, "/t/me/profile"))).toEqual({ status: 401, error: "unauthorized" });
    }
    const updatedAt = (await userRow(first.id))!.updatedAt;
    const repeat = await as(admin, "/t/users/bulk-deactivate", { body: { ids: [first.id, first.id, second.id] } });
    expect(repeat.body.data).toEqual({ affected: 2, skipped: 0, skipped_details: [] });
    expect((await userRow(first.id))!.updatedAt).toBe(updatedAt);

    const on = await as(admin, "/t/users/bulk-activate", { body: { ids } });
    expect(on.body.data).toEqual({ affected: 2, skipped: 0, skipped_details: [] });
    for (const id of ids) expect((await userRow(id))!.isActive).toBe(true);
  });

  it("skips other schools' and unknown ids as `not_found` without touching them", async () => {
    const { school, admin } = await schoolWithAdmin();
    const own = await createUser(school.id, { role: "student" });
    const foreign = await createUser((await createSchool()).id, { role: "student" });
    const unknown = unknownId();
    const res = await as(admin, "/t/users/bulk-deactivate", { body: { ids: [own.id, foreign.id, unknown] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      affected: 1,
      skipped: 2,
      skipped_details: [
        { id: foreign.id, reason: "not_found" },
        { id: unknown, reason: "not_found" },
      ],
    });
    expect((await userRow(foreign.id))!.isActive).toBe(true);
  });

  it("lets curators change students only: staff are `not_in_scope`", async () => {
    const school = await createSchool();
    const manager = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const admin = await createUser(school.id, { role: "admin" });
    const student = await createUser(school.id, { role: "student" });
    const res = await as(manager, "/t/users/bulk-deactivate", { body: { ids: [admin.id, student.id] } });
    expect(res.body.data).toEqual({ affected: 1, skipped: 1, skipped_details: [{ id: admin.id, reason: "not_in_scope" }] });
    expect((await userRow(admin.id))!.isActive).toBe(true);
  });

  it("handles the maximum of 100 ids", async () => {
    const { school, admin } = await schoolWithAdmin();
    const students = await Promise.all(Array.from({ length: 60 }, () => createUser(school.id, { role: "student" })));
    const ids = [...students.map((student) => student.id), ...Array.from({ length: 40 }, unknownId)];
    const res = await as(admin, "/t/users/bulk-deactivate", { body: { ids } });
    expect(res.status).toBe(200);
    expect(res.body.data.affected).toBe(60);
    expect(res.body.data.skipped).toBe(40);
    expect(res.body.data.skipped_details.every((item: { reason: string }) => item.reason === "not_found")).toBe(true);
  });

  it("fails the whole request with 400 `cannot_modify_self` when the caller is listed", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    for (const path of ["/t/users/bulk-deactivate", "/t/users/bulk-activate"]) {
      const res = await as(admin, path, { body: { ids: [student.id, admin.id.toUpperCase()] } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("cannot_modify_self");
    }
    expect((await userRow(student.id))!.isActive).toBe(true);
  });

  it("answers 400 `invalid_params` for an empty, oversized or malformed list and 403 `forbidden` without manage_students", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tooMany = Array.from({ length: 101 }, unknownId);
    for (const path of ["/t/users/bulk-activate", "/t/users/bulk-deactivate"]) {
      for (const body of [{ ids: [] }, { ids: tooMany }, { ids: ["nope"] }, {}, { ids: "x" }]) {
        const res = await as(admin, path, { body });
        expect({ path, body, ...failure(res) }).toEqual({ path, body, status: 400, error: "invalid_params" });
      }
      expect({ path, ...failure(await as(admin, path, { raw: "[" })) }).toEqual({ path, status: 400, error: "invalid_params" });
    }

    const student = await createUser(school.id, { role: "student" });
    for (const options of [{ role: "student" as const }, curatorWith({ can_manage_groups: true, can_view_analytics: true, can_manage_courses: true })]) {
      const caller = await signedIn(school, options);
      for (const path of ["/t/users/bulk-activate", "/t/users/bulk-deactivate"]) {
        const res = await as(caller, path, { body: { ids: [student.id] } });
        expect({ path, ...failure(res) }).toEqual({ path, status: 403, error: "forbidden" });
      }
    }
    expect((await userRow(student.id))!.isActive).toBe(true);
  });
});
