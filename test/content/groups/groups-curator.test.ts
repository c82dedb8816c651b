import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { addPushDevice, call, outboxRows } from "../../notifications/helpers";

const put = (member: Member, id: string, curatorId: unknown) => as(member, `/t/groups/${id}/curator`, { method: "PUT", body: { curator_id: curatorId } });

async function curatorRows(groupId: string) {
  return db().select().from(schema.groupCurators).where(eq(schema.groupCurators.groupId, groupId));
}

async function rowsOf(tenantId: string, code: string) {
  return (await outboxRows(tenantId)).filter((row) => row.eventCode === code);
}

/** A user with an enabled push device, so pushes can reach them. */
async function reachable(tenantId: string, options: Parameters<typeof createUser>[1]) {
  const user = await createUser(tenantId, options);
  await addPushDevice(tenantId, user.id);
  return user;
}

describe("PUT /t/groups/:id/curator", () => {
  it("sets, replaces and removes the group's one curator; the answer is the group", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id, { name: "Evening" });
    const first = await createUser(school.id, { role: "curator", firstName: "First" });
    const second = await createUser(school.id, curatorWith({ can_manage_groups: true }));

    const set = await put(admin, group.id, first.id.toUpperCase());
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ id: group.id, name: "Evening", curator_id: first.id, curator_first_name: "First", curator_email: first.email });
    expect((await curatorRows(group.id)).map((row) => row.curatorId)).toEqual([first.id]);

    const replaced = await put(admin, group.id, second.id);
    expect(replaced.body.data.curator_id).toBe(second.id);
    expect((await curatorRows(group.id)).map((row) => row.curatorId)).toEqual([second.id]);

    // Setting the same curator again keeps the row as it was.
    const [before] = await curatorRows(group.id);
    expect((await put(admin, group.id, second.id)).body.data.curator_id).toBe(second.id);
    expect(await curatorRows(group.id)).toEqual([before]);

    const removed = await put(admin, group.id, null);
    expect(removed.body.data).toMatchObject({ curator_id: null, curator_first_name: null, curator_last_name: null, curator_email: null });
    expect(await curatorRows(group.id)).toEqual([]);
    expect((await put(admin, group.id, null)).status).toBe(200);
  });

  it("moves the group into the new curator's scope and out of the old one's", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    await addMember(group, student.id);
    const before = await signedIn(school, curatorWith({ can_manage_students: true }));
    const after = await signedIn(school, curatorWith({ can_manage_students: true }));
    await put(admin, group.id, before.id);
    expect((await as(before, `/t/users/${student.id}`)).status).toBe(200);
    await put(admin, group.id, after.id);
    expect(failure(await as(before, `/t/users/${student.id}`))).toMatchObject({ status: 404 });
    expect((await as(after, `/t/users/${student.id}`)).status).toBe(200);
    expect((await as(after, "/t/groups")).body.data.groups.map((g: { id: string }) => g.id)).toEqual([group.id]);
    expect((await as(before, "/t/groups")).body.data.groups).toEqual([]);
  });

  it("answers curator_not_eligible for a student, an admin, an inactive, deleted, unknown or foreign curator, and keeps the curator", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const current = await createUser(school.id, { role: "curator" });
    await addGroupCurator(group, current.id);
    const deleted = await createUser(school.id, { role: "curator" });
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, deleted.id));
    const candidates = [
      (await createUser(school.id, { role: "student" })).id,
      admin.id,
      (await createUser(school.id, { role: "curator", isActive: false })).id,
      deleted.id,
      unknownId(),
      (await createUser((await createSchool()).id, { role: "curator" })).id,
    ];
    for (const id of candidates) {
      expect({ id, ...failure(await put(admin, group.id, id)) }).toEqual({ id, status: 400, error: "curator_not_eligible" });
    }
    expect((await curatorRows(group.id)).map((row) => row.curatorId)).toEqual([current.id]);
  });

  it("answers group_not_found, invalid_request_body, invalid_id_format and permission_denied", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator" });
    const foreign = await createGroup((await createSchool()).id);
    for (const id of [foreign.id, (await createGroup(school.id, { deleted: true })).id, unknownId()]) {
      expect(failure(await put(admin, id, curator.id))).toEqual({ status: 404, error: "group_not_found" });
      expect(failure(await put(admin, id, null))).toEqual({ status: 404, error: "group_not_found" });
    }
    expect(await curatorRows(foreign.id)).toEqual([]);
    const group = await createGroup(school.id);
    for (const body of [{}, { curator_id: "nope" }, { curator_id: 1 }, { curator_id: curator.id, extra: true }]) {
      expect({ body, ...failure(await as(admin, `/t/groups/${group.id}/curator`, { method: "PUT", body })) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    expect(failure(await put(admin, "nope", curator.id))).toEqual({ status: 400, error: "invalid_id_format" });
    const restricted = await signedIn(school, curatorWith({ can_manage_students: true }));
    expect(failure(await put(restricted, group.id, restricted.id))).toEqual({ status: 403, error: "permission_denied" });
  });
});

describe("group.curator_assigned (#53) and group.curator_changed (#54)", () => {
  it("tell the new curator once and the group's reachable members; a repeat tells nobody", async () => {
    const { school, admin } = await schoolWithAdmin();
    await addPushDevice(school.id, admin.id);
    const group = await createGroup(school.id, { name: "Evening" });
    const curator = await reachable(school.id, { role: "curator", firstName: "Cora" });
    const members = [await reachable(school.id, { role: "student" }), await reachable(school.id, { role: "student" })];
    const quiet = await createUser(school.id, { role: "student" });
    const inactive = await reachable(school.id, { role: "student", isActive: false });
    const outsider = await reachable(school.id, { role: "student" });
    for (const member of [...members, quiet, inactive]) await addMember(group, member.id);

    expect((await put(admin, group.id, curator.id)).status).toBe(200);
    const [stored] = await curatorRows(group.id);
    const assigned = await rowsOf(school.id, "group.curator_assigned");
    expect(assigned).toHaveLength(1);
    expect(assigned[0]).toMatchObject({
      userId: curator.id,
      title: "Вы куратор группы",
      // The inactive member is still a member: the count is of live students.
      body: "Вы назначены куратором группы «Evening» (студентов: 4).",
      aggregateType: "group",
      aggregateId: group.id,
      dedupeKey: `group.curator_assigned:${group.id}:${stored!.createdAt}:${curator.id}`,
      data: { event_code: "group.curator_assigned", group_id: group.id, group_name: "Evening", member_count: 4 },
    });
    const changed = await rowsOf(school.id, "group.curator_changed");
    expect(changed.map((row) => row.userId).sort()).toEqual(members.map((member) => member.id).sort());
    for (const row of changed) {
      expect(row).toMatchObject({
        title: "Новый куратор группы",
        body: "Куратор группы «Evening»: Cora User.",
        aggregateId: group.id,
        dedupeKey: `group.curator_changed:${group.id}:${stored!.createdAt}:${row.userId}`,
        data: { event_code: "group.curator_changed", group_id: group.id, group_name: "Evening", curator_name: "Cora User" },
      });
    }
    expect(changed.map((row) => row.userId)).not.toContain(outsider.id);

    // The same curator again is no news; removing the curator sends nothing either.
    expect((await put(admin, group.id, curator.id)).status).toBe(200);
    expect((await put(admin, group.id, null)).status).toBe(200);
    expect(await rowsOf(school.id, "group.curator_assigned")).toHaveLength(1);
    expect(await rowsOf(school.id, "group.curator_changed")).toHaveLength(2);

    // A later reassignment is news again.
    expect((await put(admin, group.id, curator.id)).status).toBe(200);
    expect(await rowsOf(school.id, "group.curator_assigned")).toHaveLength(2);
    expect(await rowsOf(school.id, "group.curator_changed")).toHaveLength(4);
  });

  it("a curator who assigns themself is not told; a refused call tells nobody", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const member = await reachable(school.id, { role: "student" });
    await addMember(group, member.id);
    const manager = await signedIn(school, curatorWith({ can_manage_groups: true }));
    await addPushDevice(school.id, manager.id);
    expect((await put(manager, group.id, manager.id)).status).toBe(200);
    expect(await rowsOf(school.id, "group.curator_assigned")).toEqual([]);
    expect((await rowsOf(school.id, "group.curator_changed")).map((row) => row.userId)).toEqual([member.id]);

    const other = await createGroup(school.id);
    await addMember(other, member.id);
    const inactive = await reachable(school.id, { role: "curator", isActive: false });
    expect(failure(await put(admin, other.id, inactive.id))).toEqual({ status: 400, error: "curator_not_eligible" });
    expect((await rowsOf(school.id, "group.curator_changed")).map((row) => row.userId)).toEqual([member.id]);
  });

  it("nothing when the school turned the events off", async () => {
    const { school, admin } = await schoolWithAdmin();
    for (const code of ["group.curator_assigned", "group.curator_changed"]) {
      expect((await call(admin, `/t/notifications/admin/events/${code}`, { method: "PATCH", body: { enabled: false } })).status).toBe(200);
    }
    const group = await createGroup(school.id);
    const member = await reachable(school.id, { role: "student" });
    await addMember(group, member.id);
    const curator = await reachable(school.id, { role: "curator" });
    expect((await put(admin, group.id, curator.id)).body.data.curator_id).toBe(curator.id);
    expect(await outboxRows(school.id)).toEqual([]);
  });
});
