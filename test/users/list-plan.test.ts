import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { schoolWithAdmin, type Member } from "../helpers/users";
import { schoolD1 } from "../helpers/databases";
import { queryPlan } from "../helpers/plans";
import { envWith, wrapD1 } from "../helpers/wrapped-d1";

/**
 * The users list's plans (docs/decisions/users.md, "The users list at a school's size"). The page
 * picks its users from one index without a table row ("COVERING"), and each row's groups are a
 * seek of its own memberships. Before, the page computed the groups of every user of the school
 * before sorting and cutting, and each user's groups read every membership of the school:
 * 150 ms of D1 time for the bench's 5,000 students with a group of 1,000.
 */
describe("GET /t/users plans", () => {
  it("without q walks users_tenant_created and counts from it, even with the role and status filters", async () => {
    const { admin } = await schoolWithAdmin();
    for (const path of ["/t/users?limit=20", "/t/users?limit=20&role=student,curator&status=active"]) {
      const plan = await listPlan(admin, path);
      expect(plan.filter((line) => line.includes("users_tenant_created"))).toEqual([
        "SEARCH users USING COVERING INDEX users_tenant_created (tenant_id=?)",
        "SEARCH users USING COVERING INDEX users_tenant_created (tenant_id=?)",
      ]);
      expect(plan).toContain("SEARCH users USING INTEGER PRIMARY KEY (rowid=?)");
      expect(plan).toContain("SEARCH gm USING COVERING INDEX group_members_tenant_user (tenant_id=? AND user_id=?)");
      expect(plan.join("\n")).not.toContain("users_search");
    }
  });

  it("with q scans users_search once, reading neither the table nor the folded names of the rows", async () => {
    const { admin } = await schoolWithAdmin();
    const plan = await listPlan(admin, "/t/users?limit=20&q=ann&role=student");
    expect(plan.filter((line) => line.includes("users_search"))).toEqual(["SEARCH users USING INDEX users_search (tenant_id=?)"]);
    expect(plan).toContain("SEARCH gm USING COVERING INDEX group_members_tenant_user (tenant_id=? AND user_id=?)");
    expect(plan.join("\n")).not.toContain("users_tenant_created");
  });

  it("with q alone, the scan reads nothing but the index", async () => {
    const { admin } = await schoolWithAdmin();
    const plan = await listPlan(admin, "/t/users?limit=20&q=ann");
    expect(plan.filter((line) => line.includes("users_search"))).toEqual(["SEARCH users USING COVERING INDEX users_search (tenant_id=?)"]);
  });
});

/** The query plan of the list's page statement, as the request sent it (its SQL and values). */
async function listPlan(member: Member, path: string): Promise<string[]> {
  const shard = await schoolD1(member.tenantId);
  const sent: { query: string; values: unknown[] }[] = [];
  const recording = wrapD1(shard, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== "prepare") return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      return (query: string) => {
        const statement = target.prepare(query);
        const entry = { query, values: [] as unknown[] };
        sent.push(entry);
        return new Proxy(statement, {
          get(inner, key) {
            const member = Reflect.get(inner, key, inner);
            if (key === "bind") return (...values: unknown[]) => ((entry.values = values), (member as (...a: unknown[]) => unknown).apply(inner, values));
            return typeof member === "function" ? (member as (...a: unknown[]) => unknown).bind(inner) : member;
          },
        });
      };
    },
  });
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
    envWith(recording),
  );
  expect(response.status).toBe(200);
  const page = sent.filter((entry) => entry.query.includes("groups_json"));
  expect(page).toHaveLength(1);
  return queryPlan(shard, page[0]!.query, page[0]!.values);
}
