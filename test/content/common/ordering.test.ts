import { env } from "cloudflare:test";
import { asc, eq, sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { appendPosition, reorderSiblings, reorderStatement, siblingKeys, siblingsWhere, type OrderedList } from "../../../src/content/common/ordering";
import { changedRows, insertWhere, runBatch } from "../../../src/core/db/batch";
import { shardDb } from "../../../src/core/db/client";
import type { Env } from "../../../src/core/env";
import type { SchoolCtx, TenantSummary } from "../../../src/core/http/context";
import { ApiError } from "../../../src/core/http/errors";
import { jobContext } from "../../../src/contributors";
import { forSchool } from "../../../src/core/school";
import { loadSchool } from "../../../src/platform/schools/lookup";
import { createSchool } from "../../helpers/factories";
import { memberActor } from "../../helpers/school-ctx";

/** Stand-ins for the content tables: children with their own ids, and a link table ordered by the linked id. */
const items = sqliteTable("ordering_test_items", {
  id: text("id").primaryKey(),
  tenantId: text("tenant_id").notNull(),
  parentId: text("parent_id").notNull(),
  position: integer("position").notNull(),
  updatedAt: integer("updated_at").notNull(),
  deletedAt: integer("deleted_at"),
});
const links = sqliteTable(
  "ordering_test_links",
  {
    tenantId: text("tenant_id").notNull(),
    pathId: text("path_id").notNull(),
    courseId: text("course_id").notNull(),
    position: integer("position").notNull(),
  },
  (t) => [primaryKey({ columns: [t.pathId, t.courseId] })],
);

// Two schools on one shard (the stand-in tables live there): only the school condition parts them.
const SHARD = "DB_SCHOOLS_0";
let SCHOOL: string;
let OTHER_SCHOOL: string;
const schools = new Map<string, TenantSummary>();
const PARENT = "0190a6c2-0000-7000-8000-0000000000a0";
const OTHER_PARENT = "0190a6c2-0000-7000-8000-0000000000b0";
const id = (n: number) => `0190a6c2-0000-7000-8000-${String(n).padStart(12, "0")}`;

function ctxAt(now: number, tenantId = SCHOOL): SchoolCtx {
  const school = schools.get(tenantId)!;
  return { ...forSchool(jobContext(env as Env), school, memberActor(school)), clock: { now: () => now } };
}

const list: OrderedList = { table: items, parent: { column: items.parentId, id: PARENT } };

async function rows(parentId = PARENT) {
  return shardDb(env as Env, SHARD).select().from(items).where(eq(items.parentId, parentId)).orderBy(asc(items.id));
}

async function append(ctx: SchoolCtx, itemId: string, parentId = PARENT) {
  await ctx.db.insert(items).values({
    id: itemId,
    tenantId: ctx.tenantId,
    parentId,
    position: appendPosition(ctx.tenantId, { table: items, parent: { column: items.parentId, id: parentId } }),
    updatedAt: 0,
  });
}

async function failure(run: Promise<unknown>): Promise<string | null> {
  try {
    await run;
    return null;
  } catch (err) {
    if (err instanceof ApiError) return `${err.status} ${err.code}`;
    throw err;
  }
}

beforeAll(async () => {
  for (const created of [await createSchool({ shard: SHARD }), await createSchool({ shard: SHARD })]) {
    schools.set(created.id, (await loadSchool(jobContext(env as Env), created.id))!);
  }
  [SCHOOL, OTHER_SCHOOL] = [...schools.keys()] as [string, string];
  await env.DB_SCHOOLS_0.batch([
    env.DB_SCHOOLS_0.prepare(
      "CREATE TABLE IF NOT EXISTS ordering_test_items (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, parent_id TEXT NOT NULL, position INTEGER NOT NULL, updated_at INTEGER NOT NULL, deleted_at INTEGER)",
    ),
    env.DB_SCHOOLS_0.prepare("CREATE TABLE IF NOT EXISTS ordering_test_links (tenant_id TEXT NOT NULL, path_id TEXT NOT NULL, course_id TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (path_id, course_id))"),
  ]);
});

beforeEach(async () => {
  await env.DB_SCHOOLS_0.batch([env.DB_SCHOOLS_0.prepare("DELETE FROM ordering_test_items"), env.DB_SCHOOLS_0.prepare("DELETE FROM ordering_test_links")]);
});

describe("appendPosition", () => {
  it("starts at 0 and follows the live siblings of the same parent and school", async () => {
    const ctx = ctxAt(1);
    await append(ctx, id(1));
    await append(ctx, id(2));
    await append(ctx, id(3), OTHER_PARENT);
    await append(ctxAt(1, OTHER_SCHOOL), id(4));
    await append(ctx, id(5));
    expect((await rows()).map((row) => [row.id, row.position])).toEqual([
      [id(1), 0],
      [id(2), 1],
      [id(4), 0],
      [id(5), 2],
    ]);
    expect((await rows(OTHER_PARENT)).map((row) => row.position)).toEqual([0]);
  });

  it("ignores deleted siblings", async () => {
    const ctx = ctxAt(1);
    await append(ctx, id(1));
    await append(ctx, id(2));
    await ctx.db.update(items).set({ deletedAt: 5 }).where(eq(items.id, id(2)));
    await append(ctx, id(3));
    expect((await rows()).find((row) => row.id === id(3))?.position).toBe(1);
  });

  it("gives every append of one batch its own position", async () => {
    const ctx = ctxAt(1);
    const insert = (n: number) =>
      ctx.db.insert(items).values({ id: id(n), tenantId: SCHOOL, parentId: PARENT, position: appendPosition(SCHOOL, list), updatedAt: 0 });
    await runBatch(ctx, [insert(1), insert(2), insert(3)]);
    expect((await rows()).map((row) => row.position)).toEqual([0, 1, 2]);
  });

  it("is a value of a conditional insert too", async () => {
    const ctx = ctxAt(1);
    await append(ctx, id(1));
    const row = (n: number) => ({ id: id(n), tenantId: SCHOOL, parentId: PARENT, position: appendPosition(SCHOOL, list), updatedAt: 0 });
    const [added, refused] = await runBatch(ctx, [insertWhere(ctx, items, row(2), sql`1 = 1`), insertWhere(ctx, items, row(3), sql`1 = 0`)]);
    expect([changedRows(added), changedRows(refused)]).toEqual([1, 0]);
    expect((await rows()).map((item) => [item.id, item.position])).toEqual([
      [id(1), 0],
      [id(2), 1],
    ]);
  });

  it("lets concurrent appends land on distinct positions", async () => {
    const ctx = ctxAt(1);
    await Promise.all([1, 2, 3, 4, 5].map((n) => append(ctx, id(n))));
    expect((await rows()).map((row) => row.position).sort()).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("reorderSiblings", () => {
  async function seed() {
    const ctx = ctxAt(1);
    for (const n of [1, 2, 3]) await append(ctx, id(n));
    await append(ctx, id(4));
    await ctx.db.update(items).set({ deletedAt: 5 }).where(eq(items.id, id(4)));
    await append(ctx, id(9), OTHER_PARENT);
  }

  it("writes the new order 0..n-1 in one statement and answers the count", async () => {
    await seed();
    expect(await reorderSiblings(ctxAt(1000), list, [id(3), id(1), id(2)])).toEqual({ reordered: 3 });
    expect((await rows()).map((row) => [row.id, row.position, row.updatedAt])).toEqual([
      [id(1), 1, 1000],
      [id(2), 2, 1000],
      [id(3), 0, 1000],
      [id(4), 3, 0],
    ]);
    expect(await siblingKeys(ctxAt(1), list)).toEqual([id(3), id(1), id(2)]);
    expect((await rows(OTHER_PARENT)).map((row) => [row.position, row.updatedAt])).toEqual([[0, 0]]);
  });

  it("answers reorder_duplicate first, then reorder_incomplete for missing, extra, deleted or foreign ids", async () => {
    await seed();
    const ctx = ctxAt(1000);
    expect(await failure(reorderSiblings(ctx, list, [id(1), id(1), id(9)]))).toBe("409 reorder_duplicate");
    expect(await failure(reorderSiblings(ctx, list, [id(1), id(2)]))).toBe("409 reorder_incomplete");
    expect(await failure(reorderSiblings(ctx, list, [id(1), id(2), id(3), id(4)]))).toBe("409 reorder_incomplete");
    expect(await failure(reorderSiblings(ctx, list, [id(1), id(2), id(9)]))).toBe("409 reorder_incomplete");
    expect(await failure(reorderSiblings(ctxAt(1000, OTHER_SCHOOL), list, [id(1), id(2), id(3)]))).toBe("409 reorder_incomplete");
    expect((await rows()).map((row) => row.updatedAt)).toEqual([0, 0, 0, 0]);
  });

  it("the statement changes nothing once the set has changed since the check", async () => {
    await seed();
    const ctx = ctxAt(1000);
    const statement = reorderStatement(ctx, list, [id(2), id(1), id(3)]);
    await append(ctx, id(5));
    expect(changedRows(await statement)).toBe(0);
    expect(changedRows(await reorderStatement(ctx, list, [id(2), id(1), id(9)]))).toBe(0);
    expect(changedRows(await reorderStatement(ctx, list, [id(2), id(1), id(3), id(5)]))).toBe(4);
  });

  it("orders a link table by the linked id, in one parameter for any number of ids", async () => {
    const ctx = ctxAt(1);
    const courses = Array.from({ length: 300 }, (_, n) => id(100 + n));
    const pathList: OrderedList = { table: links, parent: { column: links.pathId, id: PARENT }, key: links.courseId };
    const insert = (courseId: string) => ctx.db.insert(links).values({ tenantId: SCHOOL, pathId: PARENT, courseId, position: appendPosition(SCHOOL, pathList) });
    await runBatch(ctx, courses.map(insert));
    const reversed = [...courses].reverse();
    expect(await reorderSiblings(ctx, pathList, reversed)).toEqual({ reordered: 300 });
    expect(await siblingKeys(ctx, pathList)).toEqual(reversed);
  });
});

describe("siblingsWhere", () => {
  it("filters by school, parent and deletion, plus the caller's condition", async () => {
    await append(ctxAt(1), id(1));
    await append(ctxAt(1), id(2));
    const found = await shardDb(env as Env, SHARD).select({ id: items.id }).from(items).where(siblingsWhere(SCHOOL, list, eq(items.id, id(2))));
    expect(found).toEqual([{ id: id(2) }]);
  });
});
