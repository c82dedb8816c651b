import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { uuidv7 } from "../../src/core/lib/ids";
import { countingD1 } from "../helpers/d1-counter";
import { createGroup, schoolWithAdmin, type Member } from "../helpers/users";
import { fixtureD1, schoolD1 } from "../helpers/databases";
import { envWith } from "../helpers/wrapped-d1";

/**
 * `count` users in one INSERT … SELECT over a recursive counter (one statement, not one per row):
 * every tenth a curator, every seventh inactive, names `First<i>` / `Last<i>`. Then every third
 * of them joins a group, and every sixth a second one.
 */
async function bulkUsers(tenantId: string, count: number) {
  const prefix = uuidv7().slice(0, 24);
  const now = Date.now() - count;
  const [groupA, groupB] = [await createGroup(tenantId, { name: "Alpha" }), await createGroup(tenantId, { name: "Beta" })];
  await fixtureD1.batch([
    fixtureD1.prepare(
      `INSERT INTO users (id, tenant_id, email, password_hash, first_name, last_name, role, is_active, created_at, updated_at)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
       SELECT ?2 || printf('%012x', i), ?3, 'bulk' || i || '@example.test', 'x', 'First' || i, 'Last' || i,
              CASE WHEN i % 10 = 0 THEN 'curator' ELSE 'student' END, i % 7 <> 0, ?4 + i, ?4 + i
       FROM n`,
    ).bind(count, prefix, tenantId, now),
    fixtureD1.prepare(
      `INSERT INTO group_members (tenant_id, group_id, user_id, joined_at)
       SELECT tenant_id, ?1, id, created_at FROM users WHERE tenant_id = ?2 AND id LIKE ?3 || '%' AND CAST(substr(first_name, 6) AS INTEGER) % 3 = 0`,
    ).bind(groupA.id, tenantId, prefix),
    fixtureD1.prepare(
      `INSERT INTO group_members (tenant_id, group_id, user_id, joined_at)
       SELECT tenant_id, ?1, id, created_at + 1 FROM users WHERE tenant_id = ?2 AND id LIKE ?3 || '%' AND CAST(substr(first_name, 6) AS INTEGER) % 6 = 0`,
    ).bind(groupB.id, tenantId, prefix),
  ]);
  return { groupA, groupB };
}

/** Runs one request through the app with a D1 binding that counts what the request asks of it. */
async function countedRequest(member: Member, path: string) {
  const counting = countingD1(await schoolD1(member.tenantId));
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
    envWith(counting.db),
  );
  return { status: response.status, body: (await response.json()) as any, counts: { ...counting.counts } };
}

describe("GET /t/users at scale", () => {
  it("answers a filtered page of a 5,000-user school with the same, constant number of D1 calls as a tiny school", async () => {
    const big = await schoolWithAdmin();
    await bulkUsers(big.school.id, 5000);
    const small = await schoolWithAdmin();
    await bulkUsers(small.school.id, 60);

    const path = "/t/users?limit=20&q=First4&role=student&status=active";
    const bigRun = await countedRequest(big.admin, path);
    expect(bigRun.status).toBe(200);
    expect(bigRun.body.data.users).toHaveLength(20);
    // First4, First40-49, First400-499, First4000-4999: students (not multiples of 10) and active (not multiples of 7).
    let expected = 0;
    for (let i = 1; i <= 5000; i++) if (String(i).startsWith("4") && i % 10 !== 0 && i % 7 !== 0) expected++;
    expect(bigRun.body.data.total).toBe(expected);
    for (const user of bigRun.body.data.users) {
      const i = Number(user.first_name.slice(5));
      expect(user.group_count).toBe(i % 6 === 0 ? 2 : i % 3 === 0 ? 1 : 0);
      expect(user.groups.map((group: { name: string }) => group.name)).toEqual(i % 6 === 0 ? ["Alpha", "Beta"] : i % 3 === 0 ? ["Alpha"] : []);
    }

    const smallRun = await countedRequest(small.admin, path);
    expect(smallRun.status).toBe(200);
    expect(bigRun.counts).toEqual(smallRun.counts);
    // Auth (1 statement), then one statement for the page with its groups and the total: 2 round trips.
    expect(bigRun.counts).toEqual({ prepare: 2, batch: 0, exec: 0 });
  });

  it("fills a 200-row page with each row's groups in the same statement", async () => {
    const { school, admin } = await schoolWithAdmin();
    await bulkUsers(school.id, 300);
    const run = await countedRequest(admin, "/t/users?limit=200&page=1&role=student,curator");
    expect(run.status).toBe(200);
    expect(run.body.data).toMatchObject({ total: 300, page: 1, limit: 200 });
    expect(run.body.data.users).toHaveLength(200);
    for (const user of run.body.data.users) {
      const i = Number(user.first_name.slice(5));
      expect(user.group_count).toBe(i % 6 === 0 ? 2 : i % 3 === 0 ? 1 : 0);
    }
    expect(run.counts).toEqual({ prepare: 2, batch: 0, exec: 0 });
  });
  it("pages a 5,000-user school without filters newest first, with exact totals on every page and past the end", async () => {
    const { school, admin } = await schoolWithAdmin();
    await bulkUsers(school.id, 5000);
    // The expected order, read from the table itself: newest first, the id breaking ties.
    const { results } = await fixtureD1
      .prepare("SELECT id FROM users WHERE tenant_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC")
      .bind(school.id)
      .all<{ id: string }>();
    expect(results).toHaveLength(5001);
    const order = results.map((row) => row.id);
    const first = await countedRequest(admin, "/t/users?limit=20");
    expect(first.status).toBe(200);
    expect(first.body.data.total).toBe(5001);
    expect(first.body.data.users.map((user: { id: string }) => user.id)).toEqual(order.slice(0, 20));
    for (const user of first.body.data.users) {
      const i = Number(user.first_name.slice(5));
      if (user.id === admin.id) continue;
      expect(user.groups.map((group: { name: string }) => group.name)).toEqual(i % 6 === 0 ? ["Alpha", "Beta"] : i % 3 === 0 ? ["Alpha"] : []);
    }
    expect(first.counts).toEqual({ prepare: 2, batch: 0, exec: 0 });

    const middle = await countedRequest(admin, "/t/users?limit=100&page=17");
    expect(middle.body.data.users.map((user: { id: string }) => user.id)).toEqual(order.slice(1600, 1700));
    const last = await countedRequest(admin, "/t/users?limit=20&page=251");
    expect(last.body.data.total).toBe(5001);
    expect(last.body.data.users.map((user: { id: string }) => user.id)).toEqual(order.slice(5000));

    const past = await countedRequest(admin, "/t/users?limit=20&page=252");
    expect(past.body.data).toMatchObject({ users: [], total: 5001, page: 252 });

    // Inactive curators: multiples of 10 that are multiples of 7, i.e. of 70, newest first.
    const inactive = await countedRequest(admin, "/t/users?limit=100&role=curator&status=inactive");
    expect(inactive.body.data.total).toBe(Math.floor(5000 / 70));
    expect(inactive.body.data.users.map((user: { first_name: string }) => user.first_name)).toEqual(
      Array.from({ length: Math.floor(5000 / 70) }, (_, k) => `First${70 * (Math.floor(5000 / 70) - k)}`),
    );
  });
});
