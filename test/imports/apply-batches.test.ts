import { describe, expect, it } from "vitest";
import { requestWithD1 } from "../helpers/d1-barrier";
import { roundTripD1 } from "../helpers/d1-counter";
import { fixtureD1, schoolD1 } from "../helpers/databases";
import { failure } from "../helpers/http";
import { runCron } from "../helpers/billing";
import { addMember, as, createGroup, schoolWithAdmin } from "../helpers/users";
import { createUser } from "../helpers/factories";
import { envWith, wrapD1 } from "../helpers/wrapped-d1";
import { applyPlan, studentsCsv, upload, uploadWithD1 } from "./helpers";

/** Roster import at size: the validation's round trips, 500-row apply batches, a retry after a crash, the expiry sweep. */

async function importedUsers(tenantId: string, prefix: string) {
  const row = await fixtureD1
    .prepare("SELECT count(*) AS n, count(DISTINCT email) AS distinct_emails FROM users WHERE tenant_id = ? AND email LIKE ?")
    .bind(tenantId, `${prefix}%@import.test`)
    .first<{ n: number; distinct_emails: number }>();
  return row!;
}

describe("roster import at size", () => {
  it("validates 5,000 rows in 7 round trips (auth, five lookup batches of 1,000 rows, one write batch)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const counted = roundTripD1(await schoolD1(school.id));
    const res = await uploadWithD1(counted.db, envWith(counted.db), admin, "users", studentsCsv(5000));
    expect(res.status).toBe(201);
    expect(res.body.data.counts).toEqual({ rows: 5000, create: 5000, update: 0, unchanged: 0, error: 0 });
    expect(counted.roundTrips()).toBe(7);
    const rows = await as(admin, `/t/imports/${res.body.data.id}/rows?page=10&limit=500`);
    expect(rows.body.data.rows.at(-1)).toMatchObject({ row: 5000, action: "create", key: "s5000@import.test" });
  });

  it("finds the existing users, groups and memberships that later slices of a file name (docs/decisions/imports.md, \"Lookups in slices\")", async () => {
    const { school, admin } = await schoolWithAdmin();
    const cohort = await createGroup(school.id, { name: "Cohort" });
    // One existing user per slice of 1,000 rows, and two in the third, one of them in the group.
    const renamed = await createUser(school.id, { email: "s5@import.test", firstName: "Name5" });
    await createUser(school.id, { email: "s1005@import.test", firstName: "Name1005" });
    const member = await createUser(school.id, { email: "s2005@import.test", firstName: "Name2005" });
    await createUser(school.id, { email: "s2006@import.test", firstName: "Name2006" });
    await addMember(cohort, member.id);
    const lines = ["email,first_name,last_name,group"];
    for (let index = 1; index <= 2500; index += 1) {
      const email = index === 2400 ? "s1@import.test" : `s${index}@import.test`;
      const last = [1005, 2005, 2006].includes(index) ? "User" : `Surname${index}`;
      lines.push(`${email},Name${index},${last},${index === 2005 || index === 2006 ? "Cohort" : ""}`);
    }
    const counted = roundTripD1(await schoolD1(school.id));
    const res = await uploadWithD1(counted.db, envWith(counted.db), admin, "users", lines.join("\n") + "\n");
    expect(res.status).toBe(201);
    expect(res.body.data.counts).toEqual({ rows: 2500, create: 2495, update: 2, unchanged: 2, error: 1 });
    expect(counted.roundTrips()).toBe(5);
    const byAction = async (action: string) => (await as(admin, `/t/imports/${res.body.data.id}/rows?action=${action}&limit=10`)).body.data.rows;
    expect(await byAction("update")).toEqual([
      expect.objectContaining({ row: 5, key: "s5@import.test", changes: { last_name: [renamed.lastName, "Surname5"] } }),
      expect.objectContaining({ row: 2006, key: "s2006@import.test", changes: { group: [null, "Cohort"] } }),
    ]);
    expect((await byAction("unchanged")).map((row: { row: number }) => row.row)).toEqual([1005, 2005]);
    expect(await byAction("error")).toEqual([expect.objectContaining({ row: 2400, errors: [{ column: "email", code: "duplicate_in_file" }] })]);
  });

  it("an apply interrupted after its first 500-row batch, retried, ends with exactly the planned users and one invitation each", async () => {
    const { school, admin } = await schoolWithAdmin();
    const plan = (await upload(admin, "users", studentsCsv(1200, "crash"))).body.data;
    let userBatches = 0;
    const inner = await schoolD1(school.id);
    const crashing = wrapD1(inner, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === "batch") {
          return (statements: D1PreparedStatement[]) => {
            const users = statements.some((statement) => /INSERT INTO users/.test(String((statement as unknown as { statement?: string }).statement ?? "")));
            if (users && ++userBatches === 2) return Promise.reject(new Error("D1 went away"));
            return target.batch(statements);
          };
        }
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const crashed = await requestWithD1(crashing, `/t/imports/${plan.id}/apply`, { token: admin.token, tenant: admin.subdomain, body: { plan_hash: plan.plan_hash } });
    expect(crashed.status).toBe(500);
    expect(await importedUsers(school.id, "crash")).toEqual({ n: 500, distinct_emails: 500 });
    expect((await as(admin, `/t/imports/${plan.id}`)).body.data.status).toBe("applying");
    const retried = await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash });
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ status: "applied", result: { created: 1200, updated: 0, unchanged: 0, skipped: 0 } });
    expect(await importedUsers(school.id, "crash")).toEqual({ n: 1200, distinct_emails: 1200 });
    const invites = await fixtureD1
      .prepare("SELECT count(*) AS n, count(DISTINCT to_email) AS emails FROM email_outbox WHERE tenant_id = ? AND kind = 'account_invite'")
      .bind(school.id)
      .first();
    expect(invites).toEqual({ n: 1200, emails: 1200 });
    expect(failure(await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash }))).toEqual({ status: 409, error: "import_already_applied" });
  });

  it("the cron removes a plan's rows 24 hours after the upload and keeps the summary", async () => {
    const { school, admin } = await schoolWithAdmin();
    const shard = await schoolD1(school.id);
    const plan = (await upload(admin, "users", studentsCsv(3, "sweep"))).body.data;
    await runCron(Date.parse(plan.created_at) + 86_400_000 - 1);
    expect((await shard.prepare("SELECT count(*) AS n FROM import_chunks WHERE import_id = ?").bind(plan.id).first())!.n).toBe(1);
    await fixtureD1.prepare("UPDATE imports SET expires_at = ? WHERE id = ?").bind(Date.now() - 1, plan.id).run();
    await runCron();
    expect((await shard.prepare("SELECT count(*) AS n FROM import_chunks WHERE import_id = ?").bind(plan.id).first())!.n).toBe(0);
    expect((await as(admin, `/t/imports/${plan.id}`)).body.data).toMatchObject({ id: plan.id, counts: { rows: 3 }, preview: [] });
    expect(failure(await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash }))).toEqual({ status: 410, error: "import_expired" });
  });
});
