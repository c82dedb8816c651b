import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { uuidv7 } from "../../../src/core/lib/ids";
import { runProgressScan, schoolsForRun } from "../../../src/content/enrollments/progress-scan";
import { jobContext } from "../../../src/contributors";
import { DAY_MS, HOUR_MS, MINUTE_MS, setClockForTests } from "../../../src/core/lib/clock";
import { outboxFor, runCron } from "../../helpers/billing";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { countingD1 } from "../../helpers/d1-counter";
import { createSchool, createUser, db } from "../../helpers/factories";
import { addPushDevice } from "../../notifications/helpers";
import { addGroupCurator, addMember, createGroup } from "../../helpers/users";

/** 18:00 in Tashkent (UTC+5) on a fixed date: the default send time of `progress.stalled`. */
const SIX_PM = Date.parse("2031-03-10T13:00:00Z");
/** 09:00 in Tashkent the next morning: the digest's send time. */
const NINE_AM_NEXT = Date.parse("2031-03-11T04:00:00Z");

const at = (ms: number) => setClockForTests({ now: () => ms });
/** A context for calling the scan directly; its "rows are due" message goes nowhere (delivery is not under test). */
const scanContext = (db: D1Database = env.DB) =>
  jobContext({ ...env, DB: db, PUSH_OUTBOX: { sendBatch: async () => undefined } as unknown as typeof env.PUSH_OUTBOX });
afterEach(() => setClockForTests(null));

const rowsOf = async (tenantId: string, code: string) => (await outboxFor(tenantId)).filter((row) => row.eventCode === code);
const stalled = (tenantId: string) => rowsOf(tenantId, "progress.stalled");
const digests = (tenantId: string) => rowsOf(tenantId, "progress.students_stalled");

async function school() {
  // No expiry: the fixed clock lies years ahead of the factory's default period.
  return createSchool({ expiresAt: null });
}

async function student(tenantId: string) {
  const user = await createUser(tenantId, { role: "student" });
  await addPushDevice(tenantId, user.id);
  return user;
}

/** A published course with two blocks and the student's enrollment, idle since `enrolledAt`. */
async function enrolled(tenantId: string, studentId: string, enrolledAt: number) {
  const tree = await insertCourseTree(tenantId, { status: "published", shape: [1, 1, 2] });
  const enrollmentId = await insertEnrollment(tenantId, tree.courseId, studentId, { enrolledAt, totalBlocks: 2 });
  return { ...tree, enrollmentId };
}

describe("progress scan: progress.stalled", () => {
  it("queues one reminder per stalled enrollment from 18:00 local on, none before, none on a re-run", async () => {
    const { id } = await school();
    const learner = await student(id);
    const course = await enrolled(id, learner.id, SIX_PM - 8 * DAY_MS);
    await db().update(schema.enrollments).set({ blocksCompleted: 1 }).where(eq(schema.enrollments.id, course.enrollmentId));

    at(SIX_PM - 5 * MINUTE_MS);
    await runCron();
    expect(await stalled(id)).toEqual([]);

    at(SIX_PM);
    await runCron();
    at(SIX_PM + 5 * MINUTE_MS);
    await runCron();
    const rows = await stalled(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      userId: learner.id,
      aggregateType: "course",
      aggregateId: course.courseId,
      dedupeKey: `progress.stalled:${course.enrollmentId}:${SIX_PM - 8 * DAY_MS}:${learner.id}`,
      data: { event_code: "progress.stalled", course_id: course.courseId, inactive_days: 7, pct: 50 },
    });
    expect(rows[0]!.body).toContain("50");

    // The next evening the same idle episode is not reminded of again.
    at(SIX_PM + DAY_MS);
    await runCron();
    expect(await stalled(id)).toHaveLength(1);
  });

  it("sends nothing after activity within inactive_days, for a completed enrollment, a draft course or a removed enrollment", async () => {
    const { id } = await school();
    const learner = await student(id);
    const accessed = await enrolled(id, learner.id, SIX_PM - 30 * DAY_MS);
    await db().update(schema.enrollments).set({ lastAccessedAt: SIX_PM - 6 * DAY_MS }).where(eq(schema.enrollments.id, accessed.enrollmentId));
    const practised = await enrolled(id, learner.id, SIX_PM - 30 * DAY_MS);
    await db().insert(schema.blockCompletions).values({
      id: uuidv7(),
      tenantId: id,
      courseId: practised.courseId,
      lessonId: practised.modules[0]!.lessons[0]!.id,
      blockId: practised.blockIds[0]!,
      studentId: learner.id,
      enrollmentId: practised.enrollmentId,
      source: "manual",
      completedAt: SIX_PM - 2 * DAY_MS,
    });
    const done = await enrolled(id, learner.id, SIX_PM - 30 * DAY_MS);
    await db().update(schema.enrollments).set({ completedAt: SIX_PM - 20 * DAY_MS }).where(eq(schema.enrollments.id, done.enrollmentId));
    const removed = await enrolled(id, learner.id, SIX_PM - 30 * DAY_MS);
    await db().update(schema.enrollments).set({ removedAt: SIX_PM - DAY_MS }).where(eq(schema.enrollments.id, removed.enrollmentId));
    const draft = await insertCourseTree(id, { status: "draft" });
    await insertEnrollment(id, draft.courseId, learner.id, { enrolledAt: SIX_PM - 30 * DAY_MS });

    // Another student's idle enrollment shows the scan did run.
    const control = await enrolled(id, (await student(id)).id, SIX_PM - 30 * DAY_MS);

    at(SIX_PM + HOUR_MS);
    await runCron();
    expect((await stalled(id)).map((row) => row.aggregateId)).toEqual([control.courseId]);
  });

  it("follows the school's inactive_days, sends nothing when the event is off, and skips a school whose billing is closed", async () => {
    const tuned = await school();
    const off = await school();
    const closed = await createSchool({ planState: "suspended", expiresAt: null });
    for (const { id } of [tuned, off, closed]) await enrolled(id, (await student(id)).id, SIX_PM - 4 * DAY_MS);
    const setting = (tenantId: string, values: Partial<typeof schema.notificationEventSettings.$inferInsert>) =>
      db().insert(schema.notificationEventSettings).values({ tenantId, code: "progress.stalled", createdAt: 0, updatedAt: 0, ...values });
    await setting(tuned.id, { config: { inactive_days: 3, send_at_local: "18:00" } });
    await setting(off.id, { enabled: false, config: { inactive_days: 3, send_at_local: "18:00" } });
    await setting(closed.id, { config: { inactive_days: 3, send_at_local: "18:00" } });

    at(SIX_PM);
    await runCron();
    expect((await stalled(tuned.id)).map((row) => row.data)).toMatchObject([{ inactive_days: 3 }]);
    expect(await stalled(off.id)).toEqual([]);
    expect(await stalled(closed.id)).toEqual([]);
  });

  it("reminds of one course per student per local day, the next one the day after", async () => {
    const { id } = await school();
    const learner = await student(id);
    const older = await enrolled(id, learner.id, SIX_PM - 20 * DAY_MS);
    const newer = await enrolled(id, learner.id, SIX_PM - 10 * DAY_MS);

    at(SIX_PM);
    await runCron();
    at(SIX_PM + 2 * HOUR_MS);
    await runCron();
    expect((await stalled(id)).map((row) => row.aggregateId)).toEqual([older.courseId]);

    at(SIX_PM + DAY_MS);
    await runCron();
    expect((await stalled(id)).map((row) => row.aggregateId).sort()).toEqual([older.courseId, newer.courseId].sort());
  });
});

describe("progress scan: progress.students_stalled", () => {
  it("tells each curator once a day, from 09:00 local, how many of their students stalled in the last 24 hours", async () => {
    const { id } = await school();
    const curator = await createUser(id, { role: "curator" });
    await addPushDevice(id, curator.id);
    const other = await createUser(id, { role: "curator" });
    await addPushDevice(id, other.id);
    const mine = [await student(id), await student(id)];
    const theirs = await student(id);
    for (const learner of mine) await db().update(schema.users).set({ individualCuratorId: curator.id }).where(eq(schema.users.id, learner.id));
    await db().update(schema.users).set({ individualCuratorId: other.id }).where(eq(schema.users.id, theirs.id));
    // Two episodes began yesterday (within the 24 hours before 09:00), one long before.
    await enrolled(id, mine[0]!.id, NINE_AM_NEXT - 7 * DAY_MS - 2 * HOUR_MS);
    await enrolled(id, mine[1]!.id, NINE_AM_NEXT - 7 * DAY_MS - 20 * HOUR_MS);
    await enrolled(id, theirs.id, NINE_AM_NEXT - 9 * DAY_MS);
    // A member of the curator's group counts too (rule 2), and so does her other curator's digest.
    const group = await createGroup(id);
    const member = await student(id);
    await addGroupCurator(group, curator.id);
    await addMember(group, member.id);
    await db().update(schema.users).set({ individualCuratorId: other.id }).where(eq(schema.users.id, member.id));
    await enrolled(id, member.id, NINE_AM_NEXT - 7 * DAY_MS - 5 * HOUR_MS);
    // A deactivated student of the curator does not count.
    const gone = await createUser(id, { role: "student", isActive: false });
    await db().update(schema.users).set({ individualCuratorId: curator.id }).where(eq(schema.users.id, gone.id));
    await enrolled(id, gone.id, NINE_AM_NEXT - 7 * DAY_MS - 3 * HOUR_MS);

    at(NINE_AM_NEXT - 5 * MINUTE_MS);
    await runProgressScan(scanContext());
    expect(await digests(id)).toEqual([]);

    at(NINE_AM_NEXT);
    await runProgressScan(scanContext());
    at(NINE_AM_NEXT + 3 * HOUR_MS);
    await runProgressScan(scanContext());
    const rows = await digests(id);
    expect(rows.map((row) => [row.userId, (row.data as { stalled_count: number }).stalled_count]).sort()).toEqual(
      [
        [curator.id, 3],
        [other.id, 1],
      ].sort(),
    );
    expect(rows.find((row) => row.userId === curator.id)).toMatchObject({
      userId: curator.id,
      aggregateType: "tenant",
      aggregateId: id,
      dedupeKey: `progress.students_stalled:${curator.id}:2031-03-11`,
      data: { event_code: "progress.students_stalled", stalled_count: 3, inactive_days: 7 },
    });
  });
});

describe("progress scan: statements", () => {
  it("looks at a bounded slice of schools per run, and consecutive runs cover every school", () => {
    const schools = Array.from({ length: 2 * 25 + 3 }, (_, i) => i);
    const tick = 5 * MINUTE_MS;
    const seen = new Set<number>();
    for (let run = 0; run < 3; run++) {
      const slice = schoolsForRun(schools, SIX_PM + run * tick);
      expect(slice).toHaveLength(25);
      slice.forEach((school) => seen.add(school));
    }
    expect(seen.size).toBe(schools.length);
    expect(schoolsForRun([1, 2, 3], SIX_PM)).toEqual([1, 2, 3]);
  });

  it("uses the same number of statements for a school of 1 and of 30 stalled students", async () => {
    async function scanStatements(students: number) {
      // Schools of earlier tests are closed, so the scan sees exactly the school under test.
      await db().update(schema.tenants).set({ planState: "suspended" });
      const { id } = await school();
      const tree = await insertCourseTree(id, { status: "published" });
      for (let i = 0; i < students; i++) await insertEnrollment(id, tree.courseId, (await student(id)).id, { enrolledAt: SIX_PM - 10 * DAY_MS });
      // The control database (the school lists) and both shards (the school's statements).
      const counters = (["DB", "DB_SCHOOLS_0", "DB_SCHOOLS_1"] as const).map((name) => countingD1(env[name]!));
      at(SIX_PM + 3 * HOUR_MS);
      await runProgressScan(jobContext({ ...scanContext().env, DB: counters[0]!.db, DB_SCHOOLS_0: counters[1]!.db, DB_SCHOOLS_1: counters[2]!.db }));
      const queued = (await stalled(id)).length;
      const sum = (key: "prepare" | "batch" | "exec") => counters.reduce((total, counting) => total + counting.counts[key], 0);
      return { counts: { prepare: sum("prepare"), batch: sum("batch"), exec: sum("exec") }, queued };
    }
    const small = await scanStatements(1);
    const large = await scanStatements(30);
    expect(small.queued).toBe(1);
    expect(large.queued).toBe(30);
    expect(large.counts).toEqual(small.counts);
    // The open schools (one list per shard), one batch of the two events' settings, then one batch
    // of the school's two INSERT … SELECTs.
    expect(small.counts).toEqual({ prepare: 6, batch: 2, exec: 0 });
  });
});
