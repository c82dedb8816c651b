import { describe, expect, it } from "vitest";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { insertAssignment, targetRows } from "./helpers";
import { schoolD1 } from "../../helpers/databases";

const getTargets = (member: Member, id: string) => as(member, `/t/assignments/${id}/group-targets`);
const putTargets = (member: Member, id: string, body?: unknown) => as(member, `/t/assignments/${id}/group-targets`, { method: "PUT", body });

const assignedPushes = async (tenantId: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode === "assignment.assigned");

describe("GET /t/assignments/:id/group-targets", () => {
  it("the targeted live groups by id; empty when open to all", async () => {
    const { school, admin } = await schoolWithAdmin();
    const groups = [await createGroup(school.id), await createGroup(school.id)];
    const gone = await createGroup(school.id, { deleted: true });
    const open = await insertAssignment(school.id);
    expect((await getTargets(admin, open.id)).body.data).toEqual({ group_ids: [] });
    const set = await insertAssignment(school.id, { groups: [...groups.map((group) => group.id), gone.id] });
    const res = await getTargets(admin, set.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ group_ids: groups.map((group) => group.id).sort() });
  });

  it("404 assignment_not_found (unknown, deleted, another school's); 403 permission_denied below can_manage_courses", async () => {
    const { school, admin } = await schoolWithAdmin();
    const deleted = await insertAssignment(school.id, { deleted: true });
    const foreign = await insertAssignment((await schoolWithAdmin()).school.id);
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await getTargets(admin, id))).toEqual({ status: 404, error: "assignment_not_found" });
      expect(failure(await putTargets(admin, id, { group_ids: [] }))).toEqual({ status: 404, error: "assignment_not_found" });
    }
    const assignment = await insertAssignment(school.id);
    for (const member of [await signedIn(school, { role: "student" }), await signedIn(school, curatorWith({ can_manage_groups: true }))]) {
      expect(failure(await getTargets(member, assignment.id))).toEqual({ status: 403, error: "permission_denied" });
      expect(failure(await putTargets(member, assignment.id, { group_ids: [] }))).toEqual({ status: 403, error: "permission_denied" });
    }
  });
});

describe("PUT /t/assignments/:id/group-targets", () => {
  it("replaces the list atomically; duplicates collapse; empty or left out opens it to all", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [a, b, c] = [await createGroup(school.id), await createGroup(school.id), await createGroup(school.id)];
    const assignment = await insertAssignment(school.id, { groups: [a.id, b.id] });
    const res = await putTargets(admin, assignment.id, { group_ids: [c.id, b.id.toUpperCase(), c.id] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ group_ids: [b.id, c.id].sort() });
    expect(await targetRows(assignment.id)).toEqual([b.id, c.id].sort());
    expect((await getTargets(admin, assignment.id)).body.data).toEqual({ group_ids: [b.id, c.id].sort() });
    expect((await putTargets(admin, assignment.id, {})).body.data).toEqual({ group_ids: [] });
    expect(await targetRows(assignment.id)).toEqual([]);
    await putTargets(admin, assignment.id, { group_ids: [a.id] });
    expect((await putTargets(admin, assignment.id, { group_ids: [] })).body.data).toEqual({ group_ids: [] });
    await putTargets(admin, assignment.id, { group_ids: [a.id] });
    expect((await putTargets(admin, assignment.id)).body.data).toEqual({ group_ids: [] });
  });

  it("404 group_not_found when any id is not a live group of the school; nothing written", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const deleted = await createGroup(school.id, { deleted: true });
    const foreign = await createGroup((await schoolWithAdmin()).school.id);
    const assignment = await insertAssignment(school.id, { groups: [group.id] });
    for (const bad of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await putTargets(admin, assignment.id, { group_ids: [bad] }))).toEqual({ status: 404, error: "group_not_found" });
      expect(failure(await putTargets(admin, assignment.id, { group_ids: [group.id, bad] }))).toEqual({ status: 404, error: "group_not_found" });
    }
    expect(await targetRows(assignment.id)).toEqual([group.id]);
  });

  it("400 invalid_request_body for a bad list", async () => {
    const { school, admin } = await schoolWithAdmin();
    const assignment = await insertAssignment(school.id);
    for (const body of [{ group_ids: "x" }, { group_ids: ["not-a-uuid"] }, { group_ids: Array.from({ length: 501 }, () => unknownId()) }, { group_ids: null }, { other: [] }]) {
      expect({ body: JSON.stringify(body).slice(0, 40), ...failure(await putTargets(admin, assignment.id, body)) }).toEqual({ body: JSON.stringify(body).slice(0, 40), status: 400, error: "invalid_request_body" });
    }
  });

  it("assignment.assigned (#46) to the members of each newly added group only, with the group's name; a repeat sends nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const kept = await createGroup(school.id, { name: "Kept" });
    const added = await createGroup(school.id, { name: "Added" });
    const second = await createGroup(school.id, { name: "Second" });
    const student = async (group: { id: string; tenantId: string }) => {
      const user = await createUser(school.id, { role: "student" });
      await addMember(group, user.id);
      await addPushDevice(school.id, user.id);
      return user.id;
    };
    const keptMember = await student(kept);
    const addedMembers = [await student(added), await student(added)];
    const secondMember = await student(second);
    // A member without a push device and a curator in the group hear nothing.
    const silent = await createUser(school.id, { role: "student" });
    await addMember(added, silent.id);
    const curator = await createUser(school.id, { role: "curator" });
    await addMember(added, curator.id);
    await addPushDevice(school.id, curator.id);
    const assignment = await insertAssignment(school.id, { title: "Essay", groups: [kept.id] });

    expect((await putTargets(admin, assignment.id, { group_ids: [kept.id, added.id] })).status).toBe(200);
    const first = await assignedPushes(school.id);
    expect(first.map((row) => row.userId).sort()).toEqual([...addedMembers].sort());
    for (const row of first) {
      expect(row).toMatchObject({ aggregateType: "assignment", aggregateId: assignment.id, dedupeKey: expect.stringMatching(new RegExp(`^assignment\\.assigned:${assignment.id}:${added.id}:\\d+:${row.userId}$`)) });
      expect(row.data).toMatchObject({ event_code: "assignment.assigned", assignment_id: assignment.id, assignment_title: "Essay", group_name: "Added" });
    }
    expect(first.map((row) => row.userId)).not.toContain(keptMember);

    // The same list again adds nothing, so nobody hears again.
    await putTargets(admin, assignment.id, { group_ids: [added.id, kept.id] });
    expect(await assignedPushes(school.id)).toHaveLength(2);
    // Removing a group and adding another tells only the new group's members.
    await putTargets(admin, assignment.id, { group_ids: [second.id] });
    const afterSecond = await assignedPushes(school.id);
    expect(afterSecond.slice(2).map((row) => [row.userId, (row.data as Record<string, unknown>).group_name])).toEqual([[secondMember, "Second"]]);
    // A group removed and added again is newly added again.
    await putTargets(admin, assignment.id, { group_ids: [second.id, added.id] });
    expect((await assignedPushes(school.id)).slice(3).map((row) => row.userId).sort()).toEqual([...addedMembers].sort());
    // A refused PUT writes no push.
    const before = (await assignedPushes(school.id)).length;
    expect(failure(await putTargets(admin, assignment.id, { group_ids: [kept.id, unknownId()] }))).toEqual({ status: 404, error: "group_not_found" });
    expect(await assignedPushes(school.id)).toHaveLength(before);
  });

  it("nothing when the school switched the event off", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const member = await createUser(school.id, { role: "student" });
    await addMember(group, member.id);
    await addPushDevice(school.id, member.id);
    const assignment = await insertAssignment(school.id);
    expect((await as(admin, "/t/notifications/admin/events/assignment.assigned", { method: "PATCH", body: { enabled: false } })).status).toBe(200);
    expect((await putTargets(admin, assignment.id, { group_ids: [group.id] })).status).toBe(200);
    expect(await assignedPushes(school.id)).toEqual([]);
  });

  it("concurrent PUTs adding the same group: one target row, each member told once", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const members: string[] = [];
    for (let index = 0; index < 3; index++) {
      const user = await createUser(school.id, { role: "student" });
      await addMember(group, user.id);
      await addPushDevice(school.id, user.id);
      members.push(user.id);
    }
    const assignment = await insertAssignment(school.id);
    // Every PUT has read the (empty) targets before any writes: each thinks the group is new.
    const barrier = barrierD1(await schoolD1(school.id), { held: /^\s*DELETE FROM assignment_group_targets/, parties: 5 });
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        requestWithD1(barrier.db, `/t/assignments/${assignment.id}/group-targets`, { method: "PUT", token: admin.token, tenant: admin.subdomain, body: { group_ids: [group.id] } }),
      ),
    );
    expect(barrier.stats.releases).toEqual([5]);
    for (const res of results) expect(res.body.data).toEqual({ group_ids: [group.id] });
    expect(await targetRows(assignment.id)).toEqual([group.id]);
    expect((await assignedPushes(school.id)).map((row) => row.userId).sort()).toEqual(members.sort());
  });
});
