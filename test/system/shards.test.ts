import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { shardNames } from "../../src/core/db/client";
import type { Env } from "../../src/core/env";
import { superadminToken } from "../helpers/billing";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { createSchool, createUser } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { insertAttempt, insertQuiz } from "../helpers/quizzes";
import { as, createGroup, signedIn, unknownId } from "../helpers/users";
import { storedImage } from "../media/helpers";

/**
 * Schools are spread over the school databases, and each school's rows live in its own shard only.
 * Read from the bindings themselves (not through the fixtures, which route by school).
 */

const SHARDS = ["DB_SCHOOLS_0", "DB_SCHOOLS_1"] as const;
type Shard = (typeof SHARDS)[number];
const binding = (name: "DB" | Shard): D1Database => env[name]!;

const unique = () => `z${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;

async function shardOf(tenantId: string): Promise<string | null> {
  return env.DB.prepare("SELECT shard FROM tenants WHERE id = ?").bind(tenantId).first<string>("shard");
}

/** Live schools per shard, from the control database. */
async function liveSchools(): Promise<Record<Shard, number>> {
  const { results } = await env.DB.prepare("SELECT shard, count(*) AS n FROM tenants WHERE deleted_at IS NULL GROUP BY shard").all<{ shard: Shard; n: number }>();
  const counts = { DB_SCHOOLS_0: 0, DB_SCHOOLS_1: 0 };
  for (const row of results) counts[row.shard] = row.n;
  return counts;
}

async function createThroughApi(token: string): Promise<string> {
  const name = unique();
  const res = await api("/admin/tenants/", { token, body: { title: "Sharded School", slug: name, subdomain: name } });
  expect(res.status).toBe(201);
  return (res.body.data as { id: string }).id;
}

async function register(): Promise<string> {
  const name = unique();
  const res = await api("/auth/register", {
    body: { tenant_title: "Registered School", tenant_slug: name, email: `founder.${name}@example.test`, password: "founder-pass-1", first_name: "Dilnoza", last_name: "Karimova" },
  });
  expect(res.status).toBe(201);
  const id = await env.DB.prepare("SELECT id FROM tenants WHERE slug = ?").bind(name).first<string>("id");
  return id!;
}

/** Every table with a `tenant_id` column in a database, with the number of this school's rows. */
async function schoolRows(database: D1Database, tenantId: string): Promise<Record<string, number>> {
  const { results: tables } = await database
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations' ORDER BY name")
    .all<{ name: string }>();
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const { results: columns } = await database.prepare(`PRAGMA table_info("${name}")`).all<{ name: string }>();
    if (!columns.some((column) => column.name === "tenant_id")) continue;
    counts[name] = (await database.prepare(`SELECT count(*) AS n FROM "${name}" WHERE tenant_id = ?`).bind(tenantId).first<number>("n"))!;
  }
  return counts;
}

const withRows = (counts: Record<string, number>) => Object.keys(counts).filter((table) => counts[table]! > 0);

describe("shardNames", () => {
  const d1 = {} as D1Database;

  it("lists the school databases in index order", () => {
    expect(shardNames(env as Env)).toEqual(["DB_SCHOOLS_0", "DB_SCHOOLS_1"]);
    const many = Object.fromEntries(["DB", "DB_SCHOOLS_10", ...Array.from({ length: 10 }, (_, i) => `DB_SCHOOLS_${i}`)].map((name) => [name, d1]));
    expect(shardNames(many as unknown as Env)).toEqual(Array.from({ length: 11 }, (_, i) => `DB_SCHOOLS_${i}`));
  });

  it("refuses a gap in the numbering and a Worker without school databases", () => {
    expect(() => shardNames({ DB: d1, DB_SCHOOLS_0: d1, DB_SCHOOLS_2: d1 } as unknown as Env)).toThrow("DB_SCHOOLS_1 is missing");
    expect(() => shardNames({ DB: d1, DB_SCHOOLS_1: d1 } as unknown as Env)).toThrow("DB_SCHOOLS_0 is missing");
    expect(() => shardNames({ DB: d1 } as unknown as Env)).toThrow("no school database is bound");
  });
});

describe("new schools", () => {
  it("go to the shard with the fewest live schools, the lowest index on a tie", async () => {
    const token = await superadminToken();
    expect(await liveSchools()).toEqual({ DB_SCHOOLS_0: 0, DB_SCHOOLS_1: 0 });

    // A tie goes to shard 0, then the emptier one: the superadmin's creations and registrations alike.
    const first = await createThroughApi(token);
    expect(await shardOf(first)).toBe("DB_SCHOOLS_0");
    const second = await register();
    expect(await shardOf(second)).toBe("DB_SCHOOLS_1");
    const third = await register();
    expect(await shardOf(third)).toBe("DB_SCHOOLS_0");
    const fourth = await createThroughApi(token);
    expect(await shardOf(fourth)).toBe("DB_SCHOOLS_1");

    // Shard 1 ahead by two: the next two both go to shard 0.
    await createSchool({ shard: "DB_SCHOOLS_1" });
    await createSchool({ shard: "DB_SCHOOLS_1" });
    expect(await liveSchools()).toEqual({ DB_SCHOOLS_0: 2, DB_SCHOOLS_1: 4 });
    expect(await shardOf(await createThroughApi(token))).toBe("DB_SCHOOLS_0");
    expect(await shardOf(await register())).toBe("DB_SCHOOLS_0");
    expect(await liveSchools()).toEqual({ DB_SCHOOLS_0: 4, DB_SCHOOLS_1: 4 });

    // Only live schools count: a deleted school on shard 0 makes room there.
    await env.DB.prepare("UPDATE tenants SET deleted_at = ? WHERE id = ?").bind(Date.now(), first).run();
    expect(await shardOf(await createThroughApi(token))).toBe("DB_SCHOOLS_0");
    expect(await liveSchools()).toEqual({ DB_SCHOOLS_0: 4, DB_SCHOOLS_1: 4 });
  });

  it("factory schools alternate shards, so a test file's schools sit on both", async () => {
    const schools = [await createSchool(), await createSchool(), await createSchool(), await createSchool()];
    expect(await Promise.all(schools.map((school) => shardOf(school.id)))).toEqual(["DB_SCHOOLS_0", "DB_SCHOOLS_1", "DB_SCHOOLS_0", "DB_SCHOOLS_1"]);
  });
});

describe("a school's rows", () => {
  it("live in its own shard only: none in the other shard or the control database", async () => {
    const [school, neighbour] = [await createSchool({ shard: "DB_SCHOOLS_1" }), await createSchool({ shard: "DB_SCHOOLS_0" })];
    const admin = await signedIn(school, { role: "admin" });
    const student = await createUser(school.id, { role: "student" });
    await createUser(school.id, { role: "curator" });
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 2] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const group = await createGroup(school.id);
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    await insertAttempt(school.id, quiz.id, student.id);
    await storedImage(school.id);
    // The app's own writes too: a course created and a group joined over HTTP.
    expect((await as(admin, "/t/courses", { body: { title: "Through the API", slug: unique() } })).status).toBe(201);
    expect((await as(admin, `/t/groups/${group.id}/members`, { body: { student_ids: [student.id] } })).status).toBe(200);
    // The neighbour on the other shard has the same kinds of rows, so the other shard's tables are not empty.
    await insertCourseTree(neighbour.id, { shape: [1, 1, 1] });
    await createUser(neighbour.id, { role: "student" });

    const own = await schoolRows(binding("DB_SCHOOLS_1"), school.id);
    expect(withRows(own)).toEqual(
      expect.arrayContaining(["users", "curator_permissions", "sessions", "courses", "course_modules", "lessons", "blocks", "enrollments", "groups", "group_members", "quizzes", "quiz_questions", "quiz_attempts", "media_assets"]),
    );
    expect(own.users).toBe(3);
    expect(own.courses).toBe(2);
    expect(own.course_modules).toBe(2);
    expect(own.lessons).toBe(4);
    expect(own.blocks).toBe(8);
    expect(own.quiz_attempts).toBe(1);

    const other = await schoolRows(binding("DB_SCHOOLS_0"), school.id);
    expect(Object.keys(other)).toEqual(Object.keys(own));
    expect(withRows(other)).toEqual([]);
    const control = await schoolRows(binding("DB"), school.id);
    expect(withRows(control)).toEqual([]);
    // The school row itself is in the control database only.
    expect(await shardOf(school.id)).toBe("DB_SCHOOLS_1");
    for (const shard of SHARDS) {
      const tenants = await binding(shard).prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'tenants'").first();
      expect(tenants).toBeNull();
    }
    // And the neighbour's rows are in shard 0, none in shard 1.
    expect(withRows(await schoolRows(binding("DB_SCHOOLS_0"), neighbour.id))).toEqual(expect.arrayContaining(["users", "courses"]));
    expect(withRows(await schoolRows(binding("DB_SCHOOLS_1"), neighbour.id))).toEqual([]);
  });
});

describe("another school's objects across shards", () => {
  it("answer a member of a school on shard 0 as missing objects do, and 401 under the other school's name", async () => {
    const [home, away] = [await createSchool({ shard: "DB_SCHOOLS_0" }), await createSchool({ shard: "DB_SCHOOLS_1" })];
    const admin = await signedIn(home, { role: "admin" });
    const tree = await insertCourseTree(away.id, { shape: [1, 1, 1] });
    const user = await createUser(away.id, { role: "student" });
    const group = await createGroup(away.id);
    const media = await storedImage(away.id);
    const quiz = await insertQuiz(away.id, { questions: [{ type: "single" }] });

    const objects = [
      { path: "/t/courses/", id: tree.courseId, error: "course_not_found" },
      { path: "/t/users/", id: user.id, error: "user_not_found" },
      { path: "/t/groups/", id: group.id, error: "group_not_found" },
      { path: "/t/media/", id: media, error: "media_not_found" },
      { path: "/t/quizzes/", id: quiz.id, error: "quiz_not_found" },
    ];
    for (const object of objects) {
      const foreign = failure(await as(admin, `${object.path}${object.id}`));
      const missing = failure(await as(admin, `${object.path}${unknownId()}`));
      expect({ path: object.path, ...foreign }).toEqual({ path: object.path, status: 404, error: object.error });
      expect(foreign).toEqual(missing);
      // Naming the other school with the home school's token is refused before any object is looked up.
      const named = await api(`${object.path}${object.id}`, { token: admin.token, tenant: away.subdomain });
      expect({ path: object.path, ...failure(named) }).toEqual({ path: object.path, status: 401, error: "unauthorized" });
    }
  });
});
