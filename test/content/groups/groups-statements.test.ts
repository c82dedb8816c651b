import { describe, expect, it } from "vitest";
import { createUser } from "../../helpers/factories";
import { addGroupCurator, addMember, createGroup, schoolWithAdmin } from "../../helpers/users";
import { storedImage } from "../../media/helpers";
import { countedRequest } from "../../helpers/counted";

const counted = countedRequest;

describe("D1 work of the group endpoints (the auth query is one statement of each)", () => {
  it("reads: the list is one batch of two statements, a group and a student's groups one statement", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    for (let i = 0; i < 5; i++) await addMember(await createGroup(school.id), student.id);
    const group = await createGroup(school.id);
    expect(await counted(admin, "/t/groups")).toEqual({ status: 200, counts: { prepare: 3, batch: 1, exec: 0 } });
    expect(await counted(admin, `/t/groups/${group.id}`)).toEqual({ status: 200, counts: { prepare: 2, batch: 0, exec: 0 } });
    expect(await counted(admin, `/t/users/${student.id}/groups`)).toEqual({ status: 200, counts: { prepare: 2, batch: 0, exec: 0 } });
  });

  it("writes: create one statement (two with an asset logo), update one batch of two, delete a check and one batch of six (the audit entry and the curator pairs included)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const image = await storedImage(school.id);
    expect(await counted(admin, "/t/groups", { method: "POST", body: { name: "A" } })).toEqual({ status: 201, counts: { prepare: 2, batch: 0, exec: 0 } });
    expect(await counted(admin, "/t/groups", { method: "POST", body: { name: "B", logo: image } })).toEqual({ status: 201, counts: { prepare: 3, batch: 0, exec: 0 } });
    const group = await createGroup(school.id);
    await addMember(group, (await createUser(school.id, { role: "student" })).id);
    expect(await counted(admin, `/t/groups/${group.id}`, { method: "PATCH", body: { name: "C" } })).toEqual({ status: 200, counts: { prepare: 3, batch: 1, exec: 0 } });
    // The delete's batch holds the audit entry of the memberships it removes and the rebuild of its curators' analytics pairs (two).
    expect(await counted(admin, `/t/groups/${group.id}`, { method: "DELETE" })).toEqual({ status: 200, counts: { prepare: 8, batch: 1, exec: 0 } });
  });

  it("curator: a batch reading the group, the curator and both events' settings, then one batch of the pushes, the writes and the answer", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    await addMember(group, (await createUser(school.id, { role: "student" })).id);
    const first = await createUser(school.id, { role: "curator" });
    const second = await createUser(school.id, { role: "curator" });
    await addGroupCurator(group, first.id);
    expect(await counted(admin, `/t/groups/${group.id}/curator`, { method: "PUT", body: { curator_id: second.id } })).toEqual({
      status: 200,
      // Two of the second batch rebuild the members' curator analytics pairs.
      counts: { prepare: 12, batch: 2, exec: 0 },
    });
    expect(await counted(admin, `/t/groups/${group.id}/curator`, { method: "PUT", body: { curator_id: null } })).toEqual({
      status: 200,
      counts: { prepare: 7, batch: 2, exec: 0 },
    });
  });
});
