import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import * as schema from "../../src/db/schema";
import { runCron } from "../helpers/billing";
import { fixtureD1 } from "../helpers/databases";
import { createSchool, db } from "../helpers/factories";
import { auditRows } from "./helpers";

const entry = (tenantId: string, at: number, action = "user.updated") => ({
  id: uuidv7(at),
  tenantId,
  at,
  actorId: null,
  actorRole: null,
  actorName: null,
  actorJob: "test",
  action,
  targetType: "user",
  targetId: null,
  summary: "s",
  changes: {},
});

describe("audit retention (cron)", () => {
  it("removes entries older than 400 days and keeps the rest, in every school", async () => {
    const now = Date.now();
    const [a, b] = [await createSchool(), await createSchool()];
    for (const school of [a, b]) {
      await db().insert(schema.auditEntries).values([
        entry(school.id, now - 401 * DAY_MS, "user.deleted"),
        entry(school.id, now - 399 * DAY_MS, "user.created"),
        entry(school.id, now - DAY_MS, "user.updated"),
      ]);
    }
    await runCron(now);
    for (const school of [a, b]) expect((await auditRows(school.id)).map((row) => row.action).sort()).toEqual(["user.created", "user.updated"]);
  });

  it("a school with more old entries than one chunk is emptied of them in one run", async () => {
    const now = Date.now();
    const school = await createSchool();
    const old = now - 500 * DAY_MS;
    await fixtureD1
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500)
         INSERT INTO audit_entries (id, tenant_id, at, actor_job, action, target_type, summary, changes)
         SELECT printf('%08x-0000-7000-8000-%012x', i, i) || '', ?, ? + i, 'test', 'user.updated', 'user', 's', '{}' FROM n`,
      )
      .bind(school.id, old)
      .run();
    await db().insert(schema.auditEntries).values(entry(school.id, now - DAY_MS));
    expect((await auditRows(school.id)).length).toBe(2501);
    await runCron(now);
    expect((await auditRows(school.id)).length).toBe(1);
  });
});
