import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { jobContext } from "../../../src/contributors";
import { HOUR_MS, MINUTE_MS, setClockForTests } from "../../../src/core/lib/clock";
import { uuidv7 } from "../../../src/core/lib/ids";
import { runDeadlineScan } from "../../../src/content/schedule/deadline-scan";
import { runCron } from "../../helpers/billing";
import { insertCourseTree, insertEnrollment, type Tree } from "../../helpers/courses";
import { countingD1 } from "../../helpers/d1-counter";
import { createSchool, createUser, db } from "../../helpers/factories";
import { addGroupCurator, addMember, assignIndividualCurator, createGroup } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";

/** 10:00 in Tashkent (UTC+5) on a fixed date, so local days and hours are unambiguous. */
const T = Date.parse("2031-03-10T05:00:00Z");
/** When the windows were last edited: well before every boundary of the tests. */
const EDITED = T - 3 * 24 * HOUR_MS;

const at = (ms: number) => setClockForTests({ now: () => ms });
afterEach(() => setClockForTests(null));

async function school(options: Parameters<typeof createSchool>[0] = {}) {
  // No expiry: the tests' clock runs years ahead of the factory's default period.
  const created = await createSchool({ expiresAt: null, ...options });
  const tree = await insertCourseTree(created.id, { title: "Algebra", shape: [1, 2, 2] });
  return { school: created, tree };
}

async function student(tenantId: string, tree: Tree, options: { device?: boolean } = {}) {
  const user = await createUser(tenantId, { role: "student" });
  if (options.device !== false) await addPushDevice(tenantId, user.id);
  const enrollmentId = await insertEnrollment(tenantId, tree.courseId, user.id);
  return { ...user, enrollmentId };
}

async function curator(tenantId: string) {
  const user = await createUser(tenantId, { role: "curator" });
  await addPushDevice(tenantId, user.id);
  return user;
}

/** Completes every block of the lesson for the student. */
async function pass(tenantId: string, tree: Tree, lessonIndex: number, who: { id: string; enrollmentId: string }) {
  const lesson = tree.modules[0]!.lessons[lessonIndex]!;
  for (const blockId of lesson.blocks) {
    await db().insert(schema.blockCompletions).values({
      id: uuidv7(), tenantId, courseId: tree.courseId, lessonId: lesson.id, blockId, studentId: who.id, enrollmentId: who.enrollmentId, source: "manual", completedAt: EDITED,
    });
  }
}

type Level = "course" | "module" | "lesson";

/** A default-grid window on a node of the tree's first module. */
async function window(
  tenantId: string,
  tree: Tree,
  level: Level,
  values: { startsAt?: number | null; endsAt?: number | null; updatedAt?: number; lessonIndex?: number; groupId?: string },
) {
  const moduleId = tree.modules[0]!.id;
  const lessonId = tree.modules[0]!.lessons[values.lessonIndex ?? 0]!.id;
  const nodeId = level === "course" ? tree.courseId : level === "module" ? moduleId : lessonId;
  await db().insert(schema.scheduleWindows).values({
    id: uuidv7(), tenantId, courseId: tree.courseId, groupId: values.groupId ?? null, gridKey: values.groupId ?? "", level,
    moduleId: level === "course" ? null : moduleId, lessonId: level === "lesson" ? lessonId : null, nodeId,
    startsAt: values.startsAt ?? null, endsAt: values.endsAt ?? null, allowBeforeStart: false, allowAfterEnd: false,
    createdAt: values.updatedAt ?? EDITED, updatedAt: values.updatedAt ?? EDITED,
  });
}

const rowsOf = async (tenantId: string, code: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode === code);
const recipients = async (tenantId: string, code: string) => (await rowsOf(tenantId, code)).map((row) => row.userId).sort();

/** A cron run at the instant. */
const runAt = async (ms: number) => {
  at(ms);
  await runCron(ms);
};

describe("deadline scan: lesson.deadline_reminder (#21)", () => {
  it("one reminder per student and deadline from 09:00 local on the day before; none after passing, none twice", async () => {
    const { school: s, tree } = await school();
    const lessonId = tree.lessonIds[0]!;
    // 17:00 local tomorrow: one local day away.
    const deadline = Date.parse("2031-03-11T12:00:00Z");
    await window(s.id, tree, "lesson", { endsAt: deadline });
    const late = await student(s.id, tree);
    const done = await student(s.id, tree);
    await pass(s.id, tree, 0, done);
    await student(s.id, tree, { device: false });

    await runAt(T - 2 * HOUR_MS); // 08:00 local: before send_at_local
    expect(await rowsOf(s.id, "lesson.deadline_reminder")).toEqual([]);

    await runAt(T);
    await runAt(T + 5 * MINUTE_MS);
    const rows = await rowsOf(s.id, "lesson.deadline_reminder");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      userId: late.id,
      aggregateType: "lesson",
      aggregateId: lessonId,
      dedupeKey: `lesson.deadline_reminder:${lessonId}:${deadline}:${late.id}`,
      data: { event_code: "lesson.deadline_reminder", lesson_id: lessonId, course_title: "Algebra", deadline: new Date(deadline).toISOString(), days_left: 1 },
    });

    // The next day (0 days left) the same threshold is already sent: nothing more.
    await runAt(T + 24 * HOUR_MS);
    expect(await rowsOf(s.id, "lesson.deadline_reminder")).toHaveLength(1);
  });

  it("follows the student's effective grid, and with repeat_daily reminds once per local day", async () => {
    const { school: s, tree } = await school();
    const lessonId = tree.lessonIds[0]!;
    const deadline = Date.parse("2031-03-12T12:00:00Z"); // two local days away
    const groupDeadline = Date.parse("2031-03-20T12:00:00Z");
    await window(s.id, tree, "lesson", { endsAt: deadline });
    const group = await createGroup(s.id);
    await window(s.id, tree, "lesson", { endsAt: groupDeadline, groupId: group.id });
    const byDefault = await student(s.id, tree);
    const inGroup = await student(s.id, tree);
    await addMember(group, inGroup.id);
    await db().insert(schema.notificationEventSettings).values({
      tenantId: s.id, code: "lesson.deadline_reminder", enabled: null, config: { days_before: 2, repeat_daily: true }, createdAt: EDITED, updatedAt: EDITED,
    });

    await runAt(T);
    await runAt(T + 5 * MINUTE_MS);
    await runAt(T + 24 * HOUR_MS);
    const rows = await rowsOf(s.id, "lesson.deadline_reminder");
    expect(rows.map((row) => [row.dedupeKey, (row.data as { days_left: number }).days_left])).toEqual([
      [`lesson.deadline_reminder:${lessonId}:${deadline}:${byDefault.id}:2031-03-10`, 2],
      [`lesson.deadline_reminder:${lessonId}:${deadline}:${byDefault.id}:2031-03-11`, 1],
    ]);
  });

  it("one cron run reminds the students of schools on different shards", async () => {
    const deadline = Date.parse("2031-03-11T12:00:00Z");
    const schools = [await school({ shard: "DB_SCHOOLS_0" }), await school({ shard: "DB_SCHOOLS_1" })];
    const late: string[] = [];
    for (const { school: s, tree } of schools) {
      await window(s.id, tree, "lesson", { endsAt: deadline });
      late.push((await student(s.id, tree)).id);
    }

    await runAt(T);
    expect(await recipients(schools[0]!.school.id, "lesson.deadline_reminder")).toEqual([late[0]]);
    expect(await recipients(schools[1]!.school.id, "lesson.deadline_reminder")).toEqual([late[1]]);
  });

  it("a school whose billing gate is closed is skipped", async () => {
    const { school: s, tree } = await school({ planState: "suspended" });
    await window(s.id, tree, "lesson", { endsAt: Date.parse("2031-03-11T12:00:00Z") });
    await student(s.id, tree);
    await runAt(T);
    expect(await outboxRows(s.id)).toEqual([]);
  });
});

describe("deadline scan: openings (#23-#25)", () => {
  it("an opening at 22:00 local is held until 08:00, and only the outermost of nested openings goes out", async () => {
    const { school: s, tree } = await school();
    const start = Date.parse("2031-03-10T17:00:00Z"); // 22:00 local
    await window(s.id, tree, "course", { startsAt: start });
    await window(s.id, tree, "lesson", { startsAt: start });
    const first = await student(s.id, tree);
    const second = await student(s.id, tree);

    await runAt(start + 5 * MINUTE_MS);
    expect(await rowsOf(s.id, "course.window_opened")).toEqual([]);

    const eight = Date.parse("2031-03-11T03:00:00Z"); // 08:00 local
    await runAt(eight);
    await runAt(eight + 5 * MINUTE_MS);
    expect(await recipients(s.id, "course.window_opened")).toEqual([first.id, second.id].sort());
    expect(await rowsOf(s.id, "lesson.window_opened")).toEqual([]);
    const [row] = await rowsOf(s.id, "course.window_opened");
    expect(row).toMatchObject({ dedupeKey: `course.window_opened:${tree.courseId}:${start}:${row!.userId}`, data: { course_id: tree.courseId, course_title: "Algebra", ends_at: null } });
  });

  it("a skipped run is caught up; a window edited after its start announces nothing; a re-run inserts nothing", async () => {
    const { school: s, tree } = await school();
    const start = Date.parse("2031-03-10T06:00:00Z"); // 11:00 local
    const ends = Date.parse("2031-03-20T06:00:00Z");
    await window(s.id, tree, "lesson", { startsAt: start, endsAt: ends });
    await window(s.id, tree, "module", { startsAt: start - HOUR_MS, updatedAt: start });
    const learner = await student(s.id, tree);

    // The runs from 11:00 to 15:00 local were lost.
    await runAt(start + 4 * HOUR_MS);
    const rows = await rowsOf(s.id, "lesson.window_opened");
    expect(rows.map((row) => row.userId)).toEqual([learner.id]);
    expect(rows[0]).toMatchObject({
      dedupeKey: `lesson.window_opened:${tree.lessonIds[0]}:${start}:${learner.id}`,
      data: { lesson_title: expect.any(String), course_title: "Algebra", deadline: new Date(ends).toISOString() },
    });
    expect(await rowsOf(s.id, "module.window_opened")).toEqual([]);

    await runAt(start + 4 * HOUR_MS + 5 * MINUTE_MS);
    expect(await outboxRows(s.id)).toHaveLength(1);
  });
});

describe("deadline scan: nested openings across runs", () => {
  it("an inner opening after its course opened in an earlier run goes out; one under a course not open yet does not", async () => {
    const { school: s, tree } = await school();
    const courseStart = Date.parse("2031-03-10T04:00:00Z"); // 09:00 local
    const moduleStart = Date.parse("2031-03-10T06:00:00Z");
    await window(s.id, tree, "course", { startsAt: courseStart });
    await window(s.id, tree, "module", { startsAt: moduleStart });
    const learner = await student(s.id, tree);
    const other = await insertCourseTree(s.id, { title: "Geometry", shape: [1, 1, 1] });
    await window(s.id, other, "course", { startsAt: Date.parse("2031-03-15T06:00:00Z") });
    await window(s.id, other, "module", { startsAt: moduleStart });
    await insertEnrollment(s.id, other.courseId, learner.id);

    await runAt(courseStart + 5 * MINUTE_MS);
    expect(await recipients(s.id, "course.window_opened")).toEqual([learner.id]);
    await runAt(moduleStart + 5 * MINUTE_MS);
    const modules = await rowsOf(s.id, "module.window_opened");
    expect(modules.map((row) => row.dedupeKey)).toEqual([`module.window_opened:${tree.modules[0]!.id}:${moduleStart}:${learner.id}`]);
    expect(modules[0]!.data).toMatchObject({ module_title: "Module 1", course_title: "Algebra", ends_at: null });
  });
});

describe("deadline scan: lesson.deadline_missed (#29)", () => {
  it("each curator gets one digest with the count of their students who missed the deadline", async () => {
    const { school: s, tree } = await school();
    const lessonId = tree.lessonIds[1]!;
    const deadline = Date.parse("2031-03-10T07:00:00Z"); // 12:00 local
    await window(s.id, tree, "lesson", { endsAt: deadline, lessonIndex: 1 });
    const [a, b, c] = [await student(s.id, tree), await student(s.id, tree), await student(s.id, tree)];
    await pass(s.id, tree, 1, c);
    const individual = await curator(s.id);
    const ofGroup = await curator(s.id);
    const idle = await curator(s.id);
    await assignIndividualCurator(a.id, individual.id);
    await assignIndividualCurator(b.id, individual.id);
    await assignIndividualCurator(c.id, idle.id);
    const group = await createGroup(s.id);
    await addMember(group, b.id);
    await addMember(group, c.id);
    await addGroupCurator(group, ofGroup.id);

    await runAt(deadline - MINUTE_MS);
    expect(await rowsOf(s.id, "lesson.deadline_missed")).toEqual([]);
    await runAt(deadline + 5 * MINUTE_MS);
    await runAt(deadline + 10 * MINUTE_MS);
    const rows = await rowsOf(s.id, "lesson.deadline_missed");
    expect(Object.fromEntries(rows.map((row) => [row.userId, (row.data as { missed_count: number }).missed_count]))).toEqual({ [individual.id]: 2, [ofGroup.id]: 1 });
    expect(rows.map((row) => row.dedupeKey).sort()).toEqual([individual.id, ofGroup.id].map((id) => `lesson.deadline_missed:${lessonId}:${deadline}:${id}`).sort());
  });
});

describe("deadline scan: statements", () => {
  /** One scan with a counting D1: statements prepared and batches sent. */
  async function countedScan() {
    // The control database (the school lists) and both shards (the schools' statements).
    const counters = (["DB", "DB_SCHOOLS_0", "DB_SCHOOLS_1"] as const).map((name) => [name, countingD1(env[name]!)] as const);
    const written = await runDeadlineScan(jobContext({ ...env, ...Object.fromEntries(counters.map(([name, counting]) => [name, counting.db])) }));
    const sum = (key: "prepare" | "batch") => counters.reduce((total, [, counting]) => total + counting.counts[key], 0);
    return { written, prepare: sum("prepare"), batch: sum("batch") };
  }

  it("the number of statements per school does not grow with the number of students", async () => {
    const scanned = async (students: number) => {
      // Only this school's boundaries: the other tests' windows are gone.
      await db().delete(schema.scheduleWindows);
      // Only this school is open, so the scan's chunks hold it alone.
      await db().update(schema.tenants).set({ planState: "suspended" });
      const { school: s, tree } = await school();
      await window(s.id, tree, "lesson", { endsAt: Date.parse("2031-03-11T12:00:00Z") });
      for (let i = 0; i < students; i++) await student(s.id, tree);
      at(T);
      return countedScan();
    };
    const few = await scanned(1);
    const many = await scanned(6);
    // One school list per shard (control); on the school's shard one batch of its purge of old
    // marks and its lesson and assignment boundaries, one of a settings read per lesson event, then
    // one of the boundary's INSERT and its mark.
    expect(few).toMatchObject({ prepare: 12, batch: 3 });
    expect(few.written).toBe(1);
    expect(many.written).toBe(6);
    expect(many.prepare).toBe(few.prepare);
    expect(many.batch).toBe(few.batch);
  });
});
