import { env } from "cloudflare:test";
import { and, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { insertCourseTree } from "../helpers/courses";
import { db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { schoolWithAdmin } from "../helpers/users";
import { schoolD1 } from "../helpers/databases";

describe("race: concurrent POST /t/courses with one slug", () => {
  it("6 concurrent creations (the slug in two spellings): one 201, five 400 duplicate_slug, one row", async () => {
    const CREATIONS = 6;
    const { school, admin } = await schoolWithAdmin();
    const results = await Promise.all(
      Array.from({ length: CREATIONS }, (_, i) =>
        requestWithD1(env.DB, "/t/courses", { token: admin.token, tenant: admin.subdomain, body: { title: `Race ${i}`, slug: i % 2 === 0 ? "race" : "RACE" } }),
      ),
    );
    expect(results.filter((res) => res.status === 201)).toHaveLength(1);
    expect(results.filter((res) => res.status !== 201).map(failure)).toEqual(Array(CREATIONS - 1).fill({ status: 400, error: "duplicate_slug" }));
    const rows = await db().select().from(schema.courses).where(and(eq(schema.courses.tenantId, school.id), eq(schema.courses.slug, "race")));
    expect(rows).toHaveLength(1);
  });
});

describe("race: concurrent duplicates of one course", () => {
  it("3 concurrent POST /duplicate that all chose the same free slug: all 201, slugs -copy, -copy-2, -copy-3, each copy complete", async () => {
    const COPIES = 3;
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { slug: "chem", shape: [2, 2, 2] });
    // Every copy waits at its write until all have read the slugs: they all pick `chem-copy` first.
    const barrier = barrierD1(await schoolD1(school.id), { held: /^INSERT INTO courses \(/, parties: [COPIES, COPIES - 1, COPIES - 2] });
    const results = await Promise.all(
      Array.from({ length: COPIES }, () => requestWithD1(barrier.db, `/t/courses/${tree.courseId}/duplicate`, { token: admin.token, tenant: admin.subdomain })),
    );
    expect(results.map((res) => res.status)).toEqual(Array(COPIES).fill(201));
    expect(results.map((res) => res.body.data.slug).sort()).toEqual(["chem-copy", "chem-copy-2", "chem-copy-3"]);
    // The losers of each round come back together: 3 write chem-copy, 2 retry on chem-copy-2, 1 on chem-copy-3.
    expect(barrier.stats.releases).toEqual([3, 2, 1]);
    for (const res of results) {
      const blocks = await db()
        .select()
        .from(schema.blocks)
        .where(and(eq(schema.blocks.courseId, res.body.data.id), isNull(schema.blocks.deletedAt)));
      expect(blocks).toHaveLength(8);
    }
    const positions = results.map((res) => res.body.data.position).sort();
    expect(new Set(positions).size).toBe(COPIES);
  });
});
