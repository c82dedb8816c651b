import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../helpers/factories";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, listIds, signedIn, userRow } from "../helpers/users";

/**
 * A restricted curator (manage_students without manage_groups) with students reached every way:
 * individually, through a group, both ways and through two groups at once.
 */
async function restrictedSetup() {
  const school = await createSchool();
  const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
  const otherCurator = await createUser(school.id, { role: "curator" });
  const [individual, viaGroup, both, foreign, otherGroupOnly, inDeletedGroup] = await Promise.all(
    Array.from({ length: 6 }, () => createUser(school.id, { role: "student" })),
  );
  const groupA = await createGroup(school.id);
  const groupB = await createGroup(school.id);
  const otherGroup = await createGroup(school.id);
  const deletedGroup = await createGroup(school.id, { deleted: true });
  await addGroupCurator(groupA, curator.id);
  await addGroupCurator(groupB, curator.id);
  await addGroupCurator(deletedGroup, curator.id);
  await addGroupCurator(otherGroup, otherCurator.id);
  await assignIndividualCurator(individual!.id, curator.id);
  await assignIndividualCurator(both!.id, curator.id);
  await assignIndividualCurator(foreign!.id, otherCurator.id);
  await addMember(groupA, viaGroup!.id);
  await addMember(groupA, both!.id);
  await addMember(groupB, both!.id);
  await addMember(otherGroup, otherGroupOnly!.id);
  await addMember(deletedGroup, inDeletedGroup!.id);
  // A curator in one of the curator's groups is still not a student of theirs.
  await addMember(groupA, otherCurator.id);
  const own = [individual!, viaGroup!, both!].map((user) => user.id);
  const outside = [foreign!, otherGroupOnly!, inDeletedGroup!, otherCurator].map((user) => user.id);
  return { school, curator, own, outside };
}

describe("restricted curator scope", () => {
  it("lists only the curator's own students, each once, with a matching total", async () => {
    const { curator, own } = await restrictedSetup();
    const res = await as(curator, "/t/users?limit=200");
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(3);
    expect([...res.body.data.users.map((user: { id: string }) => user.id)].sort()).toEqual([...own].sort());
    expect(await listIds(curator, "&role=admin,curator")).toEqual([]);
    // Paging sees three distinct rows.
    const pages = [1, 2, 3].map((page) => as(curator, `/t/users?limit=1&page=${page}`));
    const seen = (await Promise.all(pages)).map((page) => page.body.data.users[0].id);
    expect(new Set(seen).size).toBe(3);
  });

  it("reads an own student and answers 404 `user_not_found` outside the scope", async () => {
    const { curator, own, outside } = await restrictedSetup();
    for (const id of own) expect((await as(curator, `/t/users/${id}`)).status).toBe(200);
    for (const id of outside) {
      const res = await as(curator, `/t/users/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("user_not_found");
    }
  });

  it("bulk operations change own students only and report the rest as `not_in_scope`", async () => {
    const { curator, own, outside } = await restrictedSetup();
    const res = await as(curator, "/t/users/bulk-deactivate", { body: { ids: [...own, ...outside] } });
    expect(res.status).toBe(200);
    expect(res.body.data.affected).toBe(3);
    expect(res.body.data.skipped).toBe(outside.length);
    expect(res.body.data.skipped_details).toEqual(outside.map((id) => ({ id, reason: "not_in_scope" })));
    for (const id of own) expect((await userRow(id))!.isActive).toBe(false);
    for (const id of outside) expect((await userRow(id))!.isActive).toBe(true);
  });

  it("does not restrict a curator who also manages groups", async () => {
    const { school, own, outside } = await restrictedSetup();
    const manager = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const ids = await listIds(manager);
    for (const id of [...own, ...outside]) expect(ids).toContain(id);
    for (const id of outside) expect((await as(manager, `/t/users/${id}`)).status).toBe(200);
  });
});
