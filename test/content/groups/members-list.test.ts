import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { ISO } from "../../helpers/courses";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { listMembers } from "./members-helpers";

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function student(tenantId: string, firstName: string, lastName: string, options: { isActive?: boolean } = {}) {
  const user = await createUser(tenantId, { role: "student", firstName, isActive: options.isActive });
  await db().update(schema.users).set({ lastName }).where(eq(schema.users.id, user.id));
  return { ...user, lastName };
}

describe("GET /t/groups/:id/members", () => {
  it("lists the live students of the group by last name, first name and id, with the total and a stable membership id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const zed = await student(school.id, "Ann", "Zed");
    const annB = await student(school.id, "Bob", "Able");
    const annA = await student(school.id, "Ann", "Able", { isActive: false });
    const gone = await student(school.id, "Gone", "Aaa");
    const curator = await createUser(school.id, { role: "curator" });
    const joinedAt = Date.UTC(2025, 0, 2, 3, 4, 5, 6);
    for (const user of [zed, annB, annA, gone, curator]) await addMember(group, user.id, joinedAt);
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, gone.id));

    const res = await listMembers(admin, group.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 3, limit: 50, offset: 0 });
    const members = res.body.data.members as Record<string, unknown>[];
    expect(members.map((m) => m.student_id)).toEqual([annA.id, annB.id, zed.id]);
    expect(members[0]).toEqual({
      membership_id: expect.stringMatching(UUID_V5),
      student_id: annA.id,
      email: annA.email,
      first_name: "Ann",
      last_name: "Able",
      is_active: false,
      joined_at: new Date(joinedAt).toISOString(),
    });
    expect(members[1]!.is_active).toBe(true);
    expect(members[2]!.joined_at).toMatch(ISO);
    expect(new Set(members.map((m) => m.membership_id)).size).toBe(3);

    // The same membership keeps its id; the same student in another group has another one.
    expect((await listMembers(admin, group.id)).body.data.members.map((m: { membership_id: string }) => m.membership_id)).toEqual(members.map((m) => m.membership_id));
    const other = await createGroup(school.id);
    await addMember(other, annA.id);
    const [elsewhere] = (await listMembers(admin, other.id)).body.data.members;
    expect(elsewhere.student_id).toBe(annA.id);
    expect(elsewhere.membership_id).toMatch(UUID_V5);
    expect(elsewhere.membership_id).not.toBe(members[0]!.membership_id);
  });

  it("pages with limit and offset; the total counts every member", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const ids: string[] = [];
    for (const last of ["A", "B", "C", "D", "E"]) {
      const user = await student(school.id, "S", last);
      ids.push(user.id);
      await addMember(group, user.id);
    }
    const page = await listMembers(admin, group.id, "?limit=2&offset=2");
    expect(page.body.data).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(page.body.data.members.map((m: { student_id: string }) => m.student_id)).toEqual(ids.slice(2, 4));
    const past = await listMembers(admin, group.id, "?offset=10");
    expect(past.body.data).toEqual({ members: [], total: 5, limit: 50, offset: 10 });
    expect((await listMembers(admin, group.id, "?limit=200")).body.data.members).toHaveLength(5);
    expect((await listMembers(admin, (await createGroup(school.id)).id)).body.data).toEqual({ members: [], total: 0, limit: 50, offset: 0 });
  });

  it("400 invalid_params for a limit outside 1-200 or a negative offset; 400 invalid_id_format for a bad id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    for (const query of ["?limit=0", "?limit=201", "?limit=abc", "?offset=-1"]) {
      expect(failure(await listMembers(admin, group.id, query))).toEqual({ status: 400, error: "invalid_params" });
    }
    expect(failure(await listMembers(admin, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("students get 404 even for their own group; a restricted curator reads only the groups they curate", async () => {
    const { school } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const member = await signedIn(school, { role: "student" });
    await addMember(group, member.id);
    expect(failure(await listMembers(member, group.id))).toEqual({ status: 404, error: "group_not_found" });

    const restricted = await signedIn(school, curatorWith({}));
    expect(failure(await listMembers(restricted, group.id))).toEqual({ status: 404, error: "group_not_found" });
    await addGroupCurator(group, restricted.id);
    expect((await listMembers(restricted, group.id)).body.data.members.map((m: { student_id: string }) => m.student_id)).toEqual([member.id]);

    const manager = await signedIn(school, curatorWith({ can_manage_groups: true }));
    expect((await listMembers(manager, group.id)).body.data.total).toBe(1);
  });

  it("404 group_not_found for an unknown, deleted or foreign group", async () => {
    const { school, admin } = await schoolWithAdmin();
    const deleted = await createGroup(school.id, { deleted: true });
    const foreign = await createGroup((await createSchool()).id);
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await listMembers(admin, id))).toEqual({ status: 404, error: "group_not_found" });
    }
  });
});
