import { env } from "cloudflare:test";
import { and, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertCourseTree } from "../../helpers/courses";
import { countingD1 } from "../../helpers/d1-counter";
import { db } from "../../helpers/factories";
import { createGroup, schoolWithAdmin, type Member } from "../../helpers/users";
import { addPushDevice } from "../../notifications/helpers";
import { linkGroup } from "./members-helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** The request through the app, with the given D1 binding. */
async function send(member: Member, path: string, method: string, body?: unknown, d1: D1Database = env.DB) {
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await app.request(`https://api.lms.localhost/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }, envWith(d1));
  await response.arrayBuffer();
  return response.status;
}

/** The request with a D1 binding that counts what it is asked for. */
async function counted(member: Member, path: string, method: string, body?: unknown) {
  const counting = countingD1(await schoolD1(member.tenantId));
  const status = await send(member, path, method, body, counting.db);
  return { status, counts: { ...counting.counts } };
}

/** Students written straight to D1 in slices (D1 binds at most 100 parameters per statement). */
async function students(tenantId: string, n: number): Promise<string[]> {
  const now = Date.now();
  const rows = Array.from({ length: n }, (_, i) => ({
    id: uuidv7(),
    tenantId,
    email: `bulk.${i}.${uuidv7()}@example.test`,
    passwordHash: "x",
    firstName: "Bulk",
    lastName: `Student ${i}`,
    role: "student" as const,
    createdAt: now,
    updatedAt: now,
  }));
  for (let start = 0; start < rows.length; start += 10) await db().insert(schema.users).values(rows.slice(start, start + 10));
  return rows.map((row) => row.id);
}

/** A group enrolled in `courses` courses, and `n` students of the school, each reachable by push. */
async function setup(courses: number, n: number) {
  const { school, admin } = await schoolWithAdmin();
  const group = await createGroup(school.id);
  const courseIds: string[] = [];
  for (let i = 0; i < courses; i++) {
    const { courseId } = await insertCourseTree(school.id);
    await linkGroup(school.id, group.id, courseId);
    courseIds.push(courseId);
  }
  const ids = await students(school.id, n);
  for (const id of ids.slice(0, 2)) await addPushDevice(school.id, id);
  return { school, admin, group, courseIds, ids };
}

async function groupSources(tenantId: string, groupId: string) {
  const [row] = await db()
    .select({ n: count() })
    .from(schema.enrollmentSources)
    .where(and(eq(schema.enrollmentSources.tenantId, tenantId), eq(schema.enrollmentSources.groupId, groupId), eq(schema.enrollmentSources.kind, "group")));
  return row!.n;
}

describe("D1 work of the group member endpoints", () => {
  it("adding: the auth query, the push settings and one batch of ten statements (the audit entry and the curator pairs included), for 2 members in 1 course as for 500 in 10", async () => {
    const small = await setup(1, 2);
    const large = await setup(10, 500);
    // Two of the batch rebuild the curator analytics pairs (curator_students) of the listed students.
    const expected = { status: 200, counts: { prepare: 12, batch: 1, exec: 0 } };
    expect(await counted(small.admin, `/t/groups/${small.group.id}/members`, "POST", { student_ids: small.ids })).toEqual(expected);
    expect(await counted(large.admin, `/t/groups/${large.group.id}/members`, "POST", { student_ids: large.ids })).toEqual(expected);
    expect(await groupSources(small.school.id, small.group.id)).toBe(2);
    expect(await groupSources(large.school.id, large.group.id)).toBe(5000);
    const [enrolled] = await db().select({ n: count() }).from(schema.enrollments).where(and(eq(schema.enrollments.tenantId, large.school.id), eq(schema.enrollments.courseId, large.courseIds[9]!), eq(schema.enrollments.totalBlocks, 1)));
    expect(enrolled!.n).toBe(500);
  });

  it("removing: the auth query, the push settings and one batch of eight statements (the audit entry and the curator pairs included), for 2 members in 1 course as for 500 in 10", async () => {
    const small = await setup(1, 2);
    const large = await setup(10, 500);
    for (const { admin, group, ids } of [small, large]) {
      // On, so the push statement is a real one (group.member_removed is off by default).
      expect(await send(admin, "/t/notifications/admin/events/group.member_removed", "PATCH", { enabled: true })).toBe(200);
      expect(await send(admin, `/t/groups/${group.id}/members`, "POST", { student_ids: ids })).toBe(200);
    }
    // Two of the batch rebuild the curator analytics pairs (curator_students) of the listed students.
    const expected = { status: 200, counts: { prepare: 10, batch: 1, exec: 0 } };
    expect(await counted(small.admin, `/t/groups/${small.group.id}/members`, "DELETE", { student_ids: small.ids })).toEqual(expected);
    expect(await counted(large.admin, `/t/groups/${large.group.id}/members`, "DELETE", { student_ids: large.ids })).toEqual(expected);
    expect(await groupSources(large.school.id, large.group.id)).toBe(0);
  });

  it("listing: the auth query and one batch of two statements", async () => {
    const { admin, group, ids } = await setup(0, 30);
    expect(await send(admin, `/t/groups/${group.id}/members`, "POST", { student_ids: ids })).toBe(200);
    expect(await counted(admin, `/t/groups/${group.id}/members?limit=200`, "GET")).toEqual({ status: 200, counts: { prepare: 3, batch: 1, exec: 0 } });
  });
});
