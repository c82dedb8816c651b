import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { DAY_MS, HOUR_MS } from "../../../src/core/lib/clock";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { countingD1 } from "../../helpers/d1-counter";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, assignIndividualCurator, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { insertCompletion } from "./helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * A course with one student per situation, enrolled one minute apart (Alice first):
 * done, risk (idle access), active (recent access), not started, active (recent completion only),
 * risk (old completion only); plus a removed enrollment and a deleted student, never listed.
 */
async function courseWithBuckets() {
  const { school, admin } = await schoolWithAdmin();
  const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
  const now = Date.now();
  const people: Record<string, { id: string; email: string; enrollmentId: string }> = {};
  const names = ["Alice", "Bob", "Carol", "Dan", "Eve", "Fay", "Gus", "Hal"];
  for (const [i, name] of names.entries()) {
    const user = await createUser(school.id, { role: "student", firstName: name });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, user.id, { enrolledAt: now - 30 * DAY_MS + i * 60_000, totalBlocks: 2 });
    people[name] = { id: user.id, email: user.email, enrollmentId };
  }
  const set = (name: string, values: Partial<typeof schema.enrollments.$inferInsert>) =>
    db().update(schema.enrollments).set(values).where(eq(schema.enrollments.id, people[name]!.enrollmentId));
  const complete = (name: string, at: number) =>
    insertCompletion({ tenantId: school.id, courseId: tree.courseId, lessonId: tree.lessonIds[0]!, blockId: tree.blockIds[0]!, studentId: people[name]!.id, enrollmentId: people[name]!.enrollmentId, at });
  await set("Alice", { blocksCompleted: 2, completedAt: now - DAY_MS, lastAccessedAt: now - 20 * DAY_MS });
  await set("Bob", { blocksCompleted: 1, lastAccessedAt: now - 10 * DAY_MS });
  await set("Carol", { blocksCompleted: 1, lastAccessedAt: now - DAY_MS });
  await set("Eve", { blocksCompleted: 1 });
  await complete("Eve", now - HOUR_MS);
  await set("Fay", { blocksCompleted: 1 });
  await complete("Fay", now - 10 * DAY_MS);
  await set("Gus", { removedAt: now });
  await db().update(schema.users).set({ deletedAt: now }).where(eq(schema.users.id, people.Hal!.id));
  return { school, admin, tree, people };
}

describe("GET /t/courses/:id/enrollments", () => {
  it("rows newest first with progress and status; counts per bucket and the mean progress", async () => {
    const { admin, tree, people } = await courseWithBuckets();
    const res = await as(admin, `/t/courses/${tree.courseId}/enrollments`);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ total: 6, page: 1, limit: 20, counts: { all: 6, active: 2, risk: 2, done: 1, notstarted: 1 }, avg_progress: "50.00" });
    const byId = new Map((data.enrollments as { student_id: string; status: string; pct: string }[]).map((row) => [row.student_id, row]));
    expect(data.enrollments.map((row: { student_id: string }) => row.student_id)).toEqual(["Fay", "Eve", "Dan", "Carol", "Bob", "Alice"].map((name) => people[name]!.id));
    expect(["Alice", "Bob", "Carol", "Dan", "Eve", "Fay"].map((name) => [name, byId.get(people[name]!.id)!.status, byId.get(people[name]!.id)!.pct])).toEqual([
      ["Alice", "done", "100.00"],
      ["Bob", "risk", "50.00"],
      ["Carol", "active", "50.00"],
      ["Dan", "notstarted", "0.00"],
      ["Eve", "active", "50.00"],
      ["Fay", "risk", "50.00"],
    ]);
    expect(data.enrollments.find((row: { student_id: string }) => row.student_id === people.Alice!.id)).toEqual({
      enrollment_id: people.Alice!.enrollmentId,
      student_id: people.Alice!.id,
      student_email: people.Alice!.email,
      student_first_name: "Alice",
      student_last_name: "User",
      enrolled_at: expect.stringMatching(/Z$/),
      enrolled_by: null,
      blocks_completed: 2,
      total_blocks: 2,
      pct: "100.00",
      last_accessed_at: expect.stringMatching(/Z$/),
      completed_at: expect.stringMatching(/Z$/),
      status: "done",
    });
  });

  it("status narrows the page and total, q narrows everything; paging", async () => {
    const { admin, tree, people } = await courseWithBuckets();
    const list = (query: string) => as(admin, `/t/courses/${tree.courseId}/enrollments?${query}`);
    const risk = await list("status=risk");
    expect(risk.body.data).toMatchObject({ total: 2, counts: { all: 6, risk: 2 }, avg_progress: "50.00" });
    expect(risk.body.data.enrollments.map((row: { student_id: string }) => row.student_id)).toEqual([people.Fay!.id, people.Bob!.id]);

    const alice = await list("q=alice");
    expect(alice.body.data).toMatchObject({ total: 1, counts: { all: 1, active: 0, risk: 0, done: 1, notstarted: 0 }, avg_progress: "100.00" });
    expect((await list(`q=${encodeURIComponent(people.Dan!.email.toUpperCase())}`)).body.data.enrollments.map((row: { student_id: string }) => row.student_id)).toEqual([people.Dan!.id]);
    expect((await list("q=user%20carol")).body.data.total).toBe(1);
    expect((await list("q=alice&status=active")).body.data).toMatchObject({ total: 0, enrollments: [], counts: { all: 1 } });
    expect((await list("q=nobody")).body.data).toMatchObject({ total: 0, counts: { all: 0, active: 0, risk: 0, done: 0, notstarted: 0 }, avg_progress: null });

    const page = await list("limit=2&page=2");
    expect(page.body.data).toMatchObject({ total: 6, page: 2, limit: 2 });
    expect(page.body.data.enrollments.map((row: { student_id: string }) => row.student_id)).toEqual([people.Dan!.id, people.Carol!.id]);
    expect((await list("limit=2&page=9")).body.data).toMatchObject({ total: 6, enrollments: [] });
  });

  it("a restricted curator sees their own students only, in rows and counts", async () => {
    const { school, tree, people } = await courseWithBuckets();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    await assignIndividualCurator(people.Alice!.id, curator.id);
    await assignIndividualCurator(people.Bob!.id, curator.id);
    const res = await as(curator, `/t/courses/${tree.courseId}/enrollments`);
    expect(res.body.data).toMatchObject({ total: 2, counts: { all: 2, done: 1, risk: 1, active: 0, notstarted: 0 }, avg_progress: "75.00" });
  });

  it("avg_progress is the mean of the rows' pct rounded half up, exactly: 16.67 and 0.00 give 8.34; 33.33 and 0.00 give 16.67", async () => {
    const { school, admin } = await schoolWithAdmin();
    const courseWith = async (totalBlocks: number, done: number[]) => {
      const tree = await insertCourseTree(school.id, { shape: [1, 1, totalBlocks] });
      for (const blocksCompleted of done) {
        const student = await createUser(school.id, { role: "student" });
        const id = await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks });
        await db().update(schema.enrollments).set({ blocksCompleted }).where(eq(schema.enrollments.id, id));
      }
      const res = await as(admin, `/t/courses/${tree.courseId}/enrollments`);
      expect(res.status).toBe(200);
      return res.body.data;
    };
    const sixths = await courseWith(6, [1, 0]);
    expect(sixths.enrollments.map((row: { pct: string }) => row.pct).sort()).toEqual(["0.00", "16.67"]);
    expect(sixths.avg_progress).toBe("8.34");
    const thirds = await courseWith(3, [1, 0]);
    expect(thirds.enrollments.map((row: { pct: string }) => row.pct).sort()).toEqual(["0.00", "33.33"]);
    expect(thirds.avg_progress).toBe("16.67");
  });

  it("a course without blocks: pct and avg_progress are null; a draft course is listed for its managers", async () => {
    const { school, admin } = await schoolWithAdmin();
    const empty = await insertCourseTree(school.id, { status: "draft", shape: [1, 1, 0] });
    await insertEnrollment(school.id, empty.courseId, (await createUser(school.id, { role: "student" })).id);
    const res = await as(admin, `/t/courses/${empty.courseId}/enrollments`);
    expect(res.body.data).toMatchObject({ total: 1, avg_progress: null, enrollments: [{ pct: null, total_blocks: 0, status: "notstarted" }] });
  });

  it("404 course_not_found for a missing, deleted or foreign course; 400 for bad ids and queries", async () => {
    const { school, admin } = await schoolWithAdmin();
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree((await createSchool()).id);
    for (const courseId of [unknownId(), deleted.courseId, foreign.courseId]) {
      expect({ courseId, ...failure(await as(admin, `/t/courses/${courseId}/enrollments`)) }).toEqual({ courseId, status: 404, error: "course_not_found" });
    }
    expect(failure(await as(admin, "/t/courses/nope/enrollments"))).toEqual({ status: 400, error: "invalid_course_id" });
    for (const query of ["status=gone", "limit=0", "limit=101", "page=0"]) {
      expect({ query, ...failure(await as(admin, `/t/courses/${deleted.courseId}/enrollments?${query}`)) }).toEqual({ query, status: 400, error: "invalid_params" });
    }
  });

  it("two D1 round trips whatever the course's size: the auth query and one batch", async () => {
    const { admin, tree } = await courseWithBuckets();
    const counting = countingD1(await schoolD1(admin.tenantId));
    const response = await app.request(
      `https://api.lms.localhost/api/v1/t/courses/${tree.courseId}/enrollments?q=a&status=active`,
      { headers: { authorization: `Bearer ${admin.token}`, "x-tenant-subdomain": admin.subdomain } },
      envWith(counting.db),
    );
    expect(response.status).toBe(200);
    // The auth statement, then the course, the page and the counts in one batch.
    expect(counting.counts).toEqual({ prepare: 4, batch: 1, exec: 0 });
  });
});
