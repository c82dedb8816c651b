import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";

describe("GET /t/users/:id/groups", () => {
  it("lists the student's live groups in joining order with name, description and joined_at", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const late = await createGroup(school.id, { name: "Late" });
    const early = await createGroup(school.id, { name: "Early" });
    const gone = await createGroup(school.id, { name: "Gone", deleted: true });
    await db().update(schema.groups).set({ description: "Mornings" }).where(eq(schema.groups.id, early.id));
    await addMember(late, student.id, Date.parse("2031-02-01T10:00:00Z"));
    await addMember(early, student.id, Date.parse("2031-01-01T09:30:00Z"));
    await addMember(gone, student.id);
    await addMember(early, (await createUser(school.id, { role: "student" })).id);

    const res = await as(admin, `/t/users/${student.id}/groups`);
    expect(res.body).toEqual({
      success: true,
      data: {
        groups: [
          { group_id: early.id, name: "Early", description: "Mornings", joined_at: "2031-01-01T09:30:00.000Z" },
          { group_id: late.id, name: "Late", description: "", joined_at: "2031-02-01T10:00:00.000Z" },
        ],
      },
    });
  });

  it("an unknown, foreign or deleted student, or a student in no group, has an empty list", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await createSchool();
    const foreign = await createUser(other.id, { role: "student" });
    const foreignGroup = await createGroup(other.id);
    await addMember(foreignGroup, foreign.id);
    const deleted = await createUser(school.id, { role: "student" });
    const group = await createGroup(school.id);
    await addMember(group, deleted.id);
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, deleted.id));
    const lonely = await createUser(school.id, { role: "student" });
    for (const id of [unknownId(), foreign.id, deleted.id, lonely.id]) {
      expect((await as(admin, `/t/users/${id}/groups`)).body).toEqual({ success: true, data: { groups: [] } });
    }
  });

  it("a restricted curator sees only the groups they curate; a curator with can_manage_groups all of them", async () => {
    const { school } = await schoolWithAdmin();
    const restricted = await signedIn(school, curatorWith({ can_manage_students: true }));
    const wide = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const student = await createUser(school.id, { role: "student" });
    const mine = await createGroup(school.id, { name: "Mine" });
    const theirs = await createGroup(school.id, { name: "Theirs" });
    await addGroupCurator(mine, restricted.id);
    await addMember(mine, student.id, 1000);
    await addMember(theirs, student.id, 2000);
    const ids = async (member: typeof restricted) =>
      ((await as(member, `/t/users/${student.id}/groups`)).body.data.groups as { group_id: string }[]).map((group) => group.group_id);
    expect(await ids(restricted)).toEqual([mine.id]);
    expect(await ids(wide)).toEqual([mine.id, theirs.id]);
    // A student outside every group the curator curates: nothing to show, not a 404.
    const outsider = await createUser(school.id, { role: "student" });
    await addMember(theirs, outsider.id);
    expect((await as(restricted, `/t/users/${outsider.id}/groups`)).body.data.groups).toEqual([]);
  });

  it("answers forbidden below can_manage_students, invalid_id_format for a bad id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const curator = await signedIn(school, curatorWith({ can_manage_groups: true }));
    expect(failure(await as(student, `/t/users/${student.id}/groups`))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await as(curator, `/t/users/${student.id}/groups`))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await as(admin, "/t/users/nope/groups"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});
