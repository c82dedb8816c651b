import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { outboxFor, schoolWithAdmin, signedIn } from "../helpers/users";
import { schoolD1 } from "../helpers/databases";

describe("race: concurrent POST /t/users with one email", () => {
  it("10 concurrent creations (the address in two spellings): exactly one 201, nine 400 email already taken, one row, one welcome email", async () => {
    const CREATIONS = 10;
    const { school, admin } = await schoolWithAdmin();
    const email = `race.${Math.random().toString(36).slice(2, 10)}@example.test`;
    // Every creation waits at its insert until all have got that far: whatever they check first, they check it before any row exists.
    const barrier = barrierD1(await schoolD1(admin.tenantId), { held: /^insert into "users"/i, parties: CREATIONS });
    const results = await Promise.all(
      Array.from({ length: CREATIONS }, (_, i) =>
        requestWithD1(barrier.db, "/t/users", {
          token: admin.token,
          tenant: admin.subdomain,
          body: { email: i % 2 === 0 ? email : email.toUpperCase(), password: "a-secret-password", first_name: "Race", last_name: `Number ${i}`, role: "student" },
        }),
      ),
    );
    expect(barrier.stats.releases).toEqual([CREATIONS]);
    const created = results.filter((res) => res.status === 201);
    expect(created).toHaveLength(1);
    expect(results.filter((res) => res.status !== 201).map(failure)).toEqual(Array(CREATIONS - 1).fill({ status: 400, error: "email already taken" }));

    const rows = await db()
      .select({ id: schema.users.id, email: schema.users.email, lastName: schema.users.lastName })
      .from(schema.users)
      .where(and(eq(schema.users.tenantId, school.id), eq(schema.users.email, email)));
    expect(rows).toEqual([{ id: created[0]!.body.data.id, email, lastName: created[0]!.body.data.last_name }]);
    // The refused creations rolled their welcome email back with the user row.
    expect((await outboxFor(school.id, email)).map((row) => row.kind)).toEqual(["welcome"]);
  });
});

describe("race: concurrent role changes to curator", () => {
  it("8 concurrent PUT /t/users/:id/role curator: all 200 with one and the same permission set, one row in D1", async () => {
    const CHANGES = 8;
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    // Every change waits at its write until all have got that far: none sees the role or the set another one wrote.
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /^update "users" set "role"/i, parties: CHANGES });
    const results = await Promise.all(
      Array.from({ length: CHANGES }, () =>
        requestWithD1(barrier.db, `/t/users/${student.id}/role`, { method: "PUT", token: admin.token, tenant: admin.subdomain, body: { role: "curator" } }),
      ),
    );
    expect(barrier.stats.releases).toEqual([CHANGES]);
    expect(results.map((res) => res.status)).toEqual(Array(CHANGES).fill(200));
    const sets = results.map((res) => res.body.data.permissions);
    expect(new Set(sets.map((set) => set.id)).size).toBe(1);
    expect(sets.map((set) => set.user_id)).toEqual(Array(CHANGES).fill(student.id));

    const rows = await db().select().from(schema.curatorPermissions).where(eq(schema.curatorPermissions.userId, student.id));
    expect(rows.map((row) => ({ id: row.id, tenantId: row.tenantId }))).toEqual([{ id: sets[0].id, tenantId: school.id }]);
    const [user] = await db().select({ role: schema.users.role }).from(schema.users).where(eq(schema.users.id, student.id));
    expect(user).toEqual({ role: "curator" });
  });
});
