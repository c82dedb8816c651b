import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { DAY_MS } from "../../../src/core/lib/clock";
import { setClockForTests } from "../../../src/core/lib/clock";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { as, schoolWithAdmin, type Member } from "../../helpers/users";
import { putWindow } from "../schedule/helpers";

afterEach(() => setClockForTests(null));

const iso = (ms: number) => new Date(ms).toISOString();

type Row = { student_id: string; status: string; pct: string };

/**
 * The list's counts and mean progress recounted from its own rows: every row of every page with
 * its status, under the same `q`. The counts are summed from the enrollments' columns while no
 * course window has ended, and from each row's status after one has; both must agree with the rows.
 */
async function countsAgainstRows(admin: Member, courseId: string, q = "") {
  const path = `/t/courses/${courseId}/enrollments?limit=100${q ? `&q=${encodeURIComponent(q)}` : ""}`;
  const res = await as(admin, path);
  expect(res.status).toBe(200);
  const rows = res.body.data.enrollments as Row[];
  expect(rows).toHaveLength(res.body.data.counts.all);
  const tally = { all: rows.length, active: 0, risk: 0, done: 0, notstarted: 0 } as Record<string, number>;
  for (const row of rows) tally[row.status]! += 1;
  expect(res.body.data.counts).toEqual(tally);
  return { counts: res.body.data.counts, avg: res.body.data.avg_progress as string | null, statuses: new Map(rows.map((row) => [row.student_id, row.status])) };
}

describe("the enrollment list's counts equal its rows' statuses", () => {
  it("at each edge of the idle limit, from the access or the completion, with and without blocks, under q, and after the course ended", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    const idleSince = now - 7 * DAY_MS;
    const student = async (firstName: string, values: Partial<typeof schema.enrollments.$inferInsert>, totalBlocks = 2) => {
      const user = await createUser(school.id, { role: "student", firstName });
      const enrollmentId = await insertEnrollment(school.id, tree.courseId, user.id, { totalBlocks });
      if (Object.keys(values).length > 0) await db().update(schema.enrollments).set(values).where(eq(schema.enrollments.id, enrollmentId));
      return user.id;
    };
    const ids = {
      accessBefore: await student("Ann", { lastAccessedAt: idleSince - 1, blocksCompleted: 1 }),
      accessAt: await student("Ben", { lastAccessedAt: idleSince }),
      accessAfter: await student("Cid", { lastAccessedAt: idleSince + 1 }),
      completionBefore: await student("Dee", { lastCompletionAt: idleSince - 1, blocksCompleted: 1 }),
      completionAt: await student("Eli", { lastCompletionAt: idleSince, blocksCompleted: 2 }),
      laterCompletion: await student("Flo", { lastAccessedAt: idleSince - DAY_MS, lastCompletionAt: idleSince + 1, blocksCompleted: 1 }),
      laterAccess: await student("Gil", { lastAccessedAt: idleSince + 1, lastCompletionAt: idleSince - DAY_MS, blocksCompleted: 1 }),
      doneLongAgo: await student("Hal", { lastAccessedAt: idleSince - 30 * DAY_MS, completedAt: idleSince - 30 * DAY_MS, blocksCompleted: 2 }),
      doneUntouched: await student("Ida", { completedAt: now, blocksCompleted: 2 }),
      fresh: await student("Jon", {}),
      noBlocks: await student("Kim", { lastAccessedAt: now }, 0),
      freshNoBlocks: await student("Lou", {}, 0),
      removed: await student("Max", { removedAt: now, lastAccessedAt: now }),
      deleted: await student("Ned", { lastAccessedAt: now, blocksCompleted: 1 }),
    };
    await db().update(schema.users).set({ deletedAt: now }).where(eq(schema.users.id, ids.deleted));

    const running = await countsAgainstRows(admin, tree.courseId);
    expect(running.counts).toEqual({ all: 12, active: 6, risk: 2, done: 2, notstarted: 2 });
    // Ann 50, Ben 0, Cid 0, Dee 50, Eli 100, Flo 50, Gil 50, Hal 100, Ida 100, Jon 0 (Kim and Lou have no blocks).
    expect(running.avg).toBe("50.00");
    expect([ids.accessBefore, ids.accessAt, ids.accessAfter, ids.completionBefore, ids.completionAt, ids.laterCompletion, ids.laterAccess].map((id) => running.statuses.get(id)))
      .toEqual(["risk", "active", "active", "risk", "active", "active", "active"]);
    expect([ids.doneLongAgo, ids.doneUntouched, ids.fresh, ids.noBlocks, ids.freshNoBlocks].map((id) => running.statuses.get(id)))
      .toEqual(["done", "done", "notstarted", "active", "notstarted"]);
    expect([ids.removed, ids.deleted].map((id) => running.statuses.has(id))).toEqual([false, false]);

    // q narrows the counts with the rows (with a space: no email matches it).
    const named = await countsAgainstRows(admin, tree.courseId, "Gil User");
    expect(named.counts).toEqual({ all: 1, active: 1, risk: 0, done: 0, notstarted: 0 });
    expect(named.avg).toBe("50.00");

    // A course window that ends tomorrow changes nothing; once it has ended, every row not done is risk.
    expect((await putWindow(admin, "courses", tree.courseId, { starts_at: iso(now - 20 * DAY_MS), ends_at: iso(now + DAY_MS) })).status).toBe(200);
    expect((await countsAgainstRows(admin, tree.courseId)).counts).toEqual(running.counts);
    expect((await putWindow(admin, "courses", tree.courseId, { starts_at: iso(now - 20 * DAY_MS), ends_at: iso(now - 1) })).status).toBe(200);
    const ended = await countsAgainstRows(admin, tree.courseId);
    expect(ended.counts).toEqual({ all: 12, active: 0, risk: 10, done: 2, notstarted: 0 });
    expect(ended.avg).toBe("50.00");
    expect((await countsAgainstRows(admin, tree.courseId, "Gil User")).counts).toEqual({ all: 1, active: 0, risk: 1, done: 0, notstarted: 0 });
  });
});
