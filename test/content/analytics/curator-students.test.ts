import { describe, expect, it } from "vitest";
import { createUser } from "../../helpers/factories";
import { schoolD1 } from "../../helpers/databases";
import { as, curatorWith, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { applyPlan, upload } from "../../imports/helpers";

/**
 * `curator_students` (the curator analytics scope) after every kind of write that can change it,
 * each through HTTP, compared with the rule recomputed here over the raw rows: a live, active
 * curator with their individually assigned live, active students and the live, active students of
 * the live groups they curate, each pair once.
 */

type Pair = [curatorId: string, studentId: string];
const sorted = (pairs: Pair[]) => pairs.map(([c, s]) => `${c}:${s}`).sort();

async function stored(tenantId: string): Promise<string[]> {
  const d1 = await schoolD1(tenantId);
  const { results } = await d1.prepare("SELECT curator_id, student_id FROM curator_students WHERE tenant_id = ?").bind(tenantId).all<{ curator_id: string; student_id: string }>();
  const pairs = results.map((row): Pair => [row.curator_id, row.student_id]);
  expect(new Set(sorted(pairs)).size).toBe(pairs.length);
  return sorted(pairs);
}

async function recomputed(tenantId: string): Promise<string[]> {
  const d1 = await schoolD1(tenantId);
  const rows = async <T>(query: string) => (await d1.prepare(query).bind(tenantId).all<T>()).results;
  const users = await rows<{ id: string; role: string; is_active: number; deleted_at: number | null; individual_curator_id: string | null }>(
    "SELECT id, role, is_active, deleted_at, individual_curator_id FROM users WHERE tenant_id = ?",
  );
  const groups = await rows<{ id: string; deleted_at: number | null }>("SELECT id, deleted_at FROM groups WHERE tenant_id = ?");
  const members = await rows<{ group_id: string; user_id: string }>("SELECT group_id, user_id FROM group_members WHERE tenant_id = ?");
  const curators = await rows<{ group_id: string; curator_id: string }>("SELECT group_id, curator_id FROM group_curators WHERE tenant_id = ?");
  const byId = new Map(users.map((user) => [user.id, user]));
  const live = (id: string | null, role: string) => {
    const user = id === null ? undefined : byId.get(id);
    return user !== undefined && user.role === role && user.deleted_at === null && user.is_active === 1;
  };
  const liveGroups = new Set(groups.filter((group) => group.deleted_at === null).map((group) => group.id));
  const pairs = new Set<string>();
  for (const user of users) if (live(user.id, "student") && live(user.individual_curator_id, "curator")) pairs.add(`${user.individual_curator_id}:${user.id}`);
  for (const curator of curators) {
    if (!liveGroups.has(curator.group_id) || !live(curator.curator_id, "curator")) continue;
    for (const member of members) if (member.group_id === curator.group_id && live(member.user_id, "student")) pairs.add(`${curator.curator_id}:${member.user_id}`);
  }
  return [...pairs].sort();
}

/** The table equals the recomputation; returns it for the explicit checks. */
async function exact(tenantId: string): Promise<string[]> {
  const table = await stored(tenantId);
  expect(table).toEqual(await recomputed(tenantId));
  return table;
}

async function ok(res: Promise<{ status: number; body: any }>, status = 200) {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer;
}

describe("curator_students equals the rule after every write that changes it", () => {
  it("individual assignment, group curators, members, activation, bulk activation, role changes, deletions, creation and import", async () => {
    const { school, admin } = await schoolWithAdmin();
    const t = school.id;
    const c1 = (await createUser(t, { role: "curator" })).id;
    const c2 = (await createUser(t, { role: "curator" })).id;
    const student = async () => (await createUser(t, { role: "student" })).id;
    const [s1, s2, s3, s4, s5] = [await student(), await student(), await student(), await student(), await student()];
    const group = async (name: string) => (await ok(as(admin, "/t/groups", { body: { name } }), 201)).body.data.id as string;
    const g = await group("G");
    const h = await group("H");
    const pair = (c: string, s: string) => `${c}:${s}`;
    expect(await exact(t)).toEqual([]);

    // Individual assignment.
    await ok(as(admin, `/t/users/${s1}/curator`, { method: "PUT", body: { curator_id: c1 } }));
    expect(await exact(t)).toEqual([pair(c1, s1)]);

    // A group's curator, then its members (s1 reached twice, once in the table).
    await ok(as(admin, `/t/groups/${g}/curator`, { method: "PUT", body: { curator_id: c1 } }));
    await ok(as(admin, `/t/groups/${g}/members`, { body: { student_ids: [s1, s2, s3] } }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c1, s2], [c1, s3]]));
    await ok(as(admin, `/t/groups/${h}/members`, { body: { student_ids: [s3, s4, s5] } }));
    await ok(as(admin, `/t/groups/${h}/curator`, { method: "PUT", body: { curator_id: c2 } }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c1, s2], [c1, s3], [c2, s3], [c2, s4], [c2, s5]]));

    // The curator changes and comes back; the group's curator is removed and set again.
    await ok(as(admin, `/t/groups/${g}/curator`, { method: "PUT", body: { curator_id: c2 } }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c2, s1], [c2, s2], [c2, s3], [c2, s4], [c2, s5]]));
    await ok(as(admin, `/t/groups/${g}/curator`, { method: "PUT", body: { curator_id: null } }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c2, s3], [c2, s4], [c2, s5]]));
    await ok(as(admin, `/t/groups/${g}/curator`, { method: "PUT", body: { curator_id: c1 } }));

    // A member leaves one group and stays in the other.
    await ok(as(admin, `/t/groups/${g}/members`, { method: "DELETE", body: { student_ids: [s3] } }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c1, s2], [c2, s3], [c2, s4], [c2, s5]]));

    // Activation of a student and of a curator, one by one and in bulk.
    await ok(as(admin, `/t/users/${s2}`, { method: "PUT", body: { is_active: false } }));
    expect(await exact(t)).not.toContain(pair(c1, s2));
    await ok(as(admin, `/t/users/${s2}`, { method: "PUT", body: { is_active: true } }));
    expect(await exact(t)).toContain(pair(c1, s2));
    await ok(as(admin, `/t/users/${c1}`, { method: "PUT", body: { is_active: false } }));
    expect(await exact(t)).toEqual(sorted([[c2, s3], [c2, s4], [c2, s5]]));
    await ok(as(admin, `/t/users/${c1}`, { method: "PUT", body: { is_active: true } }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c1, s2], [c2, s3], [c2, s4], [c2, s5]]));
    await ok(as(admin, "/t/users/bulk-deactivate", { body: { ids: [s1, s4, c2] } }));
    expect(await exact(t)).toEqual(sorted([[c1, s2]]));
    await ok(as(admin, "/t/users/bulk-activate", { body: { ids: [s1, s4, c2] } }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c1, s2], [c2, s3], [c2, s4], [c2, s5]]));

    // Role changes: a student becomes a curator, a curator a student (losing their assignments).
    await ok(as(admin, `/t/users/${s5}/role`, { method: "PUT", body: { role: "curator" } }));
    expect(await exact(t)).not.toContain(pair(c2, s5));
    await ok(as(admin, `/t/users/${s4}/curator`, { method: "PUT", body: { curator_id: s5 } }));
    expect(await exact(t)).toContain(pair(s5, s4));
    await ok(as(admin, `/t/users/${s5}/role`, { method: "PUT", body: { role: "student" } }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c1, s2], [c2, s3], [c2, s4], [c2, s5]]));

    // Soft deletion of a student and of a curator.
    await ok(as(admin, `/t/users/${s4}`, { method: "DELETE" }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c1, s2], [c2, s3], [c2, s5]]));
    const c3 = (await createUser(t, { role: "curator" })).id;
    await ok(as(admin, `/t/users/${s3}/curator`, { method: "PUT", body: { curator_id: c3 } }));
    expect(await exact(t)).toContain(pair(c3, s3));
    await ok(as(admin, `/t/users/${c3}`, { method: "DELETE" }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c1, s2], [c2, s3], [c2, s5]]));

    // A group's deletion.
    await ok(as(admin, `/t/groups/${h}`, { method: "DELETE" }));
    expect(await exact(t)).toEqual(sorted([[c1, s1], [c1, s2]]));

    // Permanent deletion of a student and of a curator.
    await ok(as(admin, `/t/users/${s2}/permanent`, { method: "DELETE" }));
    expect(await exact(t)).toEqual(sorted([[c1, s1]]));
    await ok(as(admin, `/t/users/${s3}/curator`, { method: "PUT", body: { curator_id: c2 } }));
    await ok(as(admin, `/t/users/${c2}/permanent`, { method: "DELETE" }));
    expect(await exact(t)).toEqual(sorted([[c1, s1]]));

    // A restricted curator's new student, created and imported, is theirs.
    const restricted: Member = await signedIn(school, curatorWith({ can_manage_students: true }));
    const created = (await ok(as(restricted, "/t/users", { body: { email: "own@pairs.test", password: "correct-horse-battery", first_name: "Own", last_name: "Student", role: "student" } }), 201)).body.data.id as string;
    expect(await exact(t)).toEqual(sorted([[c1, s1], [restricted.id, created]]));
    const plan = (await ok(upload(restricted, "users", "email,first_name,last_name\nimported@pairs.test,Imported,Student\n"), 201)).body.data;
    await ok(applyPlan(restricted, plan.id, { plan_hash: plan.plan_hash }));
    expect(await exact(t)).toHaveLength(3);

    // Unassignment: s1 stays c1's through group G until leaving it.
    await ok(as(admin, `/t/users/${s1}/curator`, { method: "PUT", body: { curator_id: null } }));
    expect(await exact(t)).toContain(pair(c1, s1));
    await ok(as(admin, `/t/groups/${g}/members`, { method: "DELETE", body: { student_ids: [s1] } }));
    expect(await exact(t)).not.toContain(pair(c1, s1));
  });

  it("a group's membership and curator changes reach no other school's pairs", async () => {
    const one = await schoolWithAdmin();
    const two = await schoolWithAdmin();
    for (const { school, admin } of [one, two]) {
      const curator = (await createUser(school.id, { role: "curator" })).id;
      const student = (await createUser(school.id, { role: "student" })).id;
      await ok(as(admin, `/t/users/${student}/curator`, { method: "PUT", body: { curator_id: curator } }));
    }
    const before = await exact(two.school.id);
    const g = (await ok(as(one.admin, "/t/groups", { body: { name: "G" } }), 201)).body.data.id as string;
    await ok(as(one.admin, `/t/groups/${g}`, { method: "DELETE" }));
    expect(await exact(one.school.id)).toHaveLength(1);
    expect(await exact(two.school.id)).toEqual(before);
  });
});
