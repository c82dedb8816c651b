import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { roundTripD1 } from "../../helpers/d1-counter";
import { createSchool, createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

const names = (res: { body: { data: { groups: { name: string }[] } } }) => res.body.data.groups.map((group) => group.name);

describe("GET /t/groups", () => {
  it("lists live groups of the school by name (case folded), then id, with the total and paging", async () => {
    const { school, admin } = await schoolWithAdmin();
    for (const name of ["beta", "Alpha", "gamma", "Delta"]) await createGroup(school.id, { name });
    const twinA = await createGroup(school.id, { name: "Twin" });
    const twinB = await createGroup(school.id, { name: "Twin" });
    await createGroup(school.id, { name: "Deleted", deleted: true });
    await createGroup((await createSchool()).id, { name: "Foreign" });

    const all = await as(admin, "/t/groups");
    expect(all.body.data).toMatchObject({ total: 6, limit: 50, offset: 0 });
    expect(names(all)).toEqual(["Alpha", "beta", "Delta", "gamma", "Twin", "Twin"]);
    expect(all.body.data.groups.slice(4).map((group: { id: string }) => group.id)).toEqual([twinA.id, twinB.id].sort());

    const page = await as(admin, "/t/groups?limit=2&offset=2");
    expect(page.body.data).toMatchObject({ total: 6, limit: 2, offset: 2 });
    expect(names(page)).toEqual(["Delta", "gamma"]);
    const past = await as(admin, "/t/groups?limit=2&offset=10");
    expect(past.body.data).toEqual({ groups: [], total: 6, limit: 2, offset: 10 });
  });

  it("searches names literally (% and _ match themselves), case-insensitively for ASCII", async () => {
    const { school, admin } = await schoolWithAdmin();
    for (const name of ["100% club", "1000 club", "snake_case", "snakeXcase", "Morning"]) await createGroup(school.id, { name });
    expect(names(await as(admin, `/t/groups?q=${encodeURIComponent("0%")}`))).toEqual(["100% club"]);
    expect(names(await as(admin, "/t/groups?q=e_c"))).toEqual(["snake_case"]);
    const morning = await as(admin, "/t/groups?q=MORN");
    expect(morning.body.data).toMatchObject({ total: 1 });
    expect(names(morning)).toEqual(["Morning"]);
    expect(names(await as(admin, "/t/groups?q=%20%20"))).toHaveLength(5);
  });

  it("a restricted curator sees the groups they curate; a student the groups they belong to; a manager all", async () => {
    const { school } = await schoolWithAdmin();
    const [red, blue, green] = [await createGroup(school.id, { name: "Red" }), await createGroup(school.id, { name: "Blue" }), await createGroup(school.id, { name: "Green" })];
    const restricted = await signedIn(school, curatorWith({ can_manage_students: true }));
    const manager = await signedIn(school, curatorWith({ can_manage_groups: true }));
    const student = await signedIn(school, { role: "student" });
    await addGroupCurator(red, restricted.id);
    await addGroupCurator(blue, manager.id);
    await addMember(blue, student.id);
    await addMember(green, student.id);
    expect(names(await as(restricted, "/t/groups"))).toEqual(["Red"]);
    expect((await as(restricted, "/t/groups")).body.data.total).toBe(1);
    expect(names(await as(student, "/t/groups"))).toEqual(["Blue", "Green"]);
    expect(names(await as(manager, "/t/groups"))).toEqual(["Blue", "Green", "Red"]);
  });

  it("answers invalid_params for a limit outside 1-200, a negative offset or a bad term", async () => {
    const { admin } = await schoolWithAdmin();
    for (const query of ["limit=0", "limit=201", "limit=x", "offset=-1", "offset=1.5", `q=${"q".repeat(121)}`, "q=%00"]) {
      expect({ query, ...failure(await as(admin, `/t/groups?${query}`)) }).toEqual({ query, status: 400, error: "invalid_params" });
    }
    expect((await as(admin, "/t/groups?limit=200")).status).toBe(200);
  });

  it("costs the auth query and one batch, whatever the page holds", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator" });
    for (let i = 0; i < 30; i++) {
      const group = await createGroup(school.id);
      await addGroupCurator(group, curator.id);
      await addMember(group, (await createUser(school.id, { role: "student" })).id);
    }
    const restricted = await signedIn(school, curatorWith({ can_manage_students: true }));
    for (const member of [admin, restricted] as Member[]) {
      const counter = roundTripD1(await schoolD1(member.tenantId));
      const response = await app.request(
        "https://api.lms.localhost/api/v1/t/groups?limit=200",
        { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
        envWith(counter.db),
      );
      const body = (await response.json()) as { data: { groups: { member_count: number; curator_id: string | null }[] } };
      expect(response.status).toBe(200);
      if (member === admin) expect(body.data.groups.every((group) => group.member_count === 1 && group.curator_id === curator.id)).toBe(true);
      expect(counter.roundTrips()).toBe(2);
    }
  });
});
