import { env, SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { DAY_MS } from "../../../src/core/lib/clock";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { countingD1 } from "../../helpers/d1-counter";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, assignIndividualCurator, curatorWith, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { fixtureD1, schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

const HEADER = "ФИО,Email,Дата записи,Прогресс %,Завершено блоков,Всего блоков,Статус,Последняя активность";

/** The export's raw bytes (the byte-order mark included), headers, and its text after the mark. */
async function download(member: Member, courseId: string, fetcher: (request: Request) => Promise<Response> = (request) => SELF.fetch(request)) {
  const response = await fetcher(
    new Request(`https://api.lms.localhost/api/v1/t/courses/${courseId}/enrollments/export.csv`, {
      headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain },
    }),
  );
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, text: new TextDecoder().decode(bytes) };
}

const DATE = String.raw`\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}`;

describe("GET /t/courses/:id/enrollments/export.csv", () => {
  it("a UTF-8 CSV with a BOM, the contract's header, quoted cells, status words and neutralised formulas", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { slug: "algebra-101", shape: [1, 1, 2] });
    const now = Date.now();
    const student = async (firstName: string, lastName: string, email: string, enrolledAt: number, values: Partial<typeof schema.enrollments.$inferInsert>) => {
      const user = await createUser(school.id, { role: "student", firstName, email });
      await db().update(schema.users).set({ lastName }).where(eq(schema.users.id, user.id));
      const id = await insertEnrollment(school.id, tree.courseId, user.id, { enrolledAt, totalBlocks: 2 });
      await db().update(schema.enrollments).set(values).where(eq(schema.enrollments.id, id));
    };
    await student("Ann, \"Jr\"", "O'Neil\nSmith", "ann@example.test", now - 4000, { blocksCompleted: 2, completedAt: now, lastAccessedAt: now });
    await student("Bob", "=HYPERLINK(\"http://x\")", "-bob@example.test", now - 3000, { blocksCompleted: 1, lastAccessedAt: now - 10 * DAY_MS });
    await student("Carol", "Ivanova", "carol@example.test", now - 2000, { blocksCompleted: 1, lastAccessedAt: now });
    await student("Dan", "Petrov", "dan@example.test", now - 1000, { updatedAt: now });

    const res = await download(admin, tree.courseId);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const day = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tashkent", year: "numeric", month: "2-digit", day: "2-digit" }).format(Date.now());
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="algebra-101-enrollments-${day}.csv"; filename*=UTF-8''algebra-101-enrollments-${day}.csv`);
    expect([...res.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = res.text;
    expect(text.startsWith(`${HEADER}\r\n`)).toBe(true);
    expect(text.endsWith("\r\n")).toBe(true);
    const body = text.slice(HEADER.length + 2);
    expect(body).toMatch(new RegExp(String.raw`^"O'Neil\nSmith Ann, ""Jr""",ann@example\.test,${DATE},100\.00,2,2,завершил,${DATE}\r\n`));
    expect(body).toMatch(new RegExp(String.raw`\r\n"'=HYPERLINK\(""http://x""\) Bob",'-bob@example\.test,${DATE},50\.00,1,2,в зоне риска,${DATE}\r\n`));
    expect(body).toMatch(new RegExp(String.raw`\r\nIvanova Carol,carol@example\.test,${DATE},50\.00,1,2,активен,${DATE}\r\n`));
    expect(body).toMatch(new RegExp(String.raw`\r\nPetrov Dan,dan@example\.test,${DATE},0\.00,0,2,не начал,\r\n$`));
  });

  it("streams 1,200 enrollments in keyset-paged chunks of 500: every row once, three chunk queries", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    await bulkEnrollments(school.id, tree.courseId, 1200);
    const counting = countingD1(await schoolD1(school.id));
    const res = await download(admin, tree.courseId, (request) => Promise.resolve(app.request(request, undefined, envWith(counting.db))));
    expect(res.status).toBe(200);
    const lines = res.text.split("\r\n");
    expect(lines.at(-1)).toBe("");
    const rows = lines.slice(1, -1);
    expect(rows).toHaveLength(1200);
    expect(new Set(rows.map((row) => row.split(",")[1])).size).toBe(1200);
    expect(rows[0]).toMatch(/^Last1 First1,bulk1-/);
    expect(rows[1199]).toMatch(/^Last1200 First1200,/);
    // Auth, the course, then one query per chunk (500, 500, 200): never the whole course at once.
    expect(counting.counts).toEqual({ prepare: 5, batch: 0, exec: 0 });
  });

  it("with the bench's statement timing on, Server-Timing counts the chunks the stream reads, and the file is the same", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    await bulkEnrollments(school.id, tree.courseId, 1200);
    const timed = await download(admin, tree.courseId, (request) => Promise.resolve(app.request(request, undefined, { ...env, D1_TIMING: "true" })));
    expect(timed.status).toBe(200);
    // The course, then the three chunks (docs/decisions/heavy-reads.md, "Enrollment CSV export").
    expect(timed.headers.get("server-timing")).toMatch(/^d1;dur=\d+\.\d\d;desc="4"$/);
    expect(timed.text).toBe((await download(admin, tree.courseId)).text);
  });

  it("active enrollments only; a restricted curator gets their own students", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const own = await createUser(school.id, { role: "student", firstName: "Own", email: "own@example.test" });
    const other = await createUser(school.id, { role: "student", firstName: "Other", email: "other@example.test" });
    const gone = await createUser(school.id, { role: "student", firstName: "Gone", email: "gone@example.test" });
    await insertEnrollment(school.id, tree.courseId, own.id);
    await insertEnrollment(school.id, tree.courseId, other.id);
    const goneId = await insertEnrollment(school.id, tree.courseId, gone.id);
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, goneId));
    const emails = (text: string) => text.split("\r\n").slice(1, -1).map((row) => row.split(",")[1]);
    expect(emails((await download(admin, tree.courseId)).text)).toEqual(["own@example.test", "other@example.test"]);
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    await assignIndividualCurator(own.id, curator.id);
    expect(emails((await download(curator, tree.courseId)).text)).toEqual(["own@example.test"]);
  });

  it("404 course_not_found for a foreign course; 400 invalid_course_id", async () => {
    const { admin } = await schoolWithAdmin();
    const foreign = await insertCourseTree((await createSchool()).id);
    expect(failure(await as(admin, `/t/courses/${foreign.courseId}/enrollments/export.csv`))).toEqual({ status: 404, error: "course_not_found" });
    expect(failure(await as(admin, "/t/courses/nope/enrollments/export.csv"))).toEqual({ status: 400, error: "invalid_course_id" });
  });
});

/** `count` students enrolled in the course (enrolled one ms apart, in order), in two INSERT … SELECT statements. */
async function bulkEnrollments(tenantId: string, courseId: string, count: number) {
  const prefix = uuidv7().slice(0, 24);
  const now = Date.now() - count;
  await fixtureD1.batch([
    fixtureD1.prepare(
      `INSERT INTO users (id, tenant_id, email, password_hash, first_name, last_name, role, is_active, created_at, updated_at)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
       SELECT ?2 || printf('%012x', i), ?3, 'bulk' || i || '-' || ?2 || '@example.test', 'x', 'First' || i, 'Last' || i, 'student', 1, ?4, ?4 FROM n`,
    ).bind(count, prefix, tenantId, now),
    fixtureD1.prepare(
      `INSERT INTO enrollments (id, tenant_id, course_id, student_id, enrolled_at, blocks_completed, total_blocks, created_at, updated_at)
       SELECT 'e' || substr(id, 2), tenant_id, ?1, id, ?2 + CAST(substr(first_name, 6) AS INTEGER), 0, 1, ?2, ?2
       FROM users WHERE tenant_id = ?3 AND id LIKE ?4 || '%'`,
    ).bind(courseId, now, tenantId, prefix),
  ]);
}
