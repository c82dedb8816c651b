import { eq } from "drizzle-orm";
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { jobContext } from "../../../src/contributors";
import { DAY_MS, HOUR_MS, MINUTE_MS, setClockForTests } from "../../../src/core/lib/clock";
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
const EDITED = T - 3 * DAY_MS;

const REMINDER = "assignment.deadline_reminder";
const MISSED = "assignment.deadline_missed";

const at = (ms: number) => setClockForTests({ now: () => ms });
afterEach(() => setClockForTests(null));

const runAt = async (ms: number) => {
  at(ms);
  await runCron(ms);
};

/** A school whose course "Algebra" (one module, two lessons) holds the assignment "Essay" in its first lesson. */
async function school(options: Parameters<typeof createSchool>[0] = {}) {
  const created = await createSchool({ expiresAt: null, ...options });
  const tree = await insertCourseTree(created.id, { title: "Algebra", shape: [1, 2, 1] });
  const assignmentId = uuidv7();
  await db().insert(schema.assignments).values({ id: assignmentId, tenantId: created.id, title: "Essay", createdAt: EDITED, updatedAt: EDITED });
  await refBlock(created.id, tree, 0, assignmentId);
  return { school: created, tree, assignmentId };
}

/** An `assignment_ref` block naming the assignment in the lesson. */
async function refBlock(tenantId: string, tree: Tree, lessonIndex: number, assignmentId: string) {
  await db().insert(schema.blocks).values({
    id: uuidv7(), tenantId, courseId: tree.courseId, moduleId: tree.modules[0]!.id, lessonId: tree.lessonIds[lessonIndex]!, type: "assignment_ref",
    payload: {}, refId: assignmentId, position: 9, createdAt: EDITED, updatedAt: EDITED,
  });
}

async function student(tenantId: string, tree: Tree) {
  const user = await createUser(tenantId, { role: "student" });
  await addPushDevice(tenantId, user.id);
  await insertEnrollment(tenantId, tree.courseId, user.id);
  return user;
}

async function curator(tenantId: string) {
  const user = await createUser(tenantId, { role: "curator" });
  await addPushDevice(tenantId, user.id);
  return user;
}

async function submission(tenantId: string, assignmentId: string, studentId: string, status: "draft" | "submitted" | "accepted" | "rejected", submittedAt: number | null = EDITED) {
  await db().insert(schema.submissions).values({
    id: uuidv7(), tenantId, assignmentId, studentId, attempt: 1, status, submittedAt: status === "draft" ? null : submittedAt, createdAt: EDITED, updatedAt: EDITED,
  });
}

type Level = "course" | "module" | "lesson";

/** A window on a node of the tree's first module (default grid unless a group is named). */
async function window(tenantId: string, tree: Tree, level: Level, endsAt: number, options: { lessonIndex?: number; groupId?: string } = {}) {
  const moduleId = tree.modules[0]!.id;
  const lessonId = tree.lessonIds[options.lessonIndex ?? 0]!;
  const nodeId = level === "course" ? tree.courseId : level === "module" ? moduleId : lessonId;
  await db().insert(schema.scheduleWindows).values({
    id: uuidv7(), tenantId, courseId: tree.courseId, groupId: options.groupId ?? null, gridKey: options.groupId ?? "", level,
    moduleId: level === "course" ? null : moduleId, lessonId: level === "lesson" ? lessonId : null, nodeId,
    startsAt: null, endsAt, allowBeforeStart: false, allowAfterEnd: false, createdAt: EDITED, updatedAt: EDITED,
  });
}

const rowsOf = async (tenantId: string, code: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode === code);
const recipients = async (tenantId: string, code: string) => (await rowsOf(tenantId, code)).map((row) => row.userId).sort();

describe("deadline scan: assignment.deadline_reminder (#22)", () => {
  it("reminds the targeted students whose closing date it is and who have not handed in, once", async () => {
    const { school: s, tree, assignmentId } = await school();
    // 17:00 local tomorrow: one local day away, within the default two.
    const deadline = Date.parse("2031-03-11T12:00:00Z");
    await window(s.id, tree, "lesson", deadline);
    const targeted = await createGroup(s.id);
    await db().insert(schema.assignmentGroupTargets).values({ tenantId: s.id, assignmentId, groupId: targeted.id, createdAt: EDITED });

    const due = await student(s.id, tree);
    const drafting = await student(s.id, tree);
    await submission(s.id, assignmentId, drafting.id, "draft");
    const handedIn = await student(s.id, tree);
    await submission(s.id, assignmentId, handedIn.id, "submitted");
    const rejected = await student(s.id, tree);
    await submission(s.id, assignmentId, rejected.id, "rejected");
    await student(s.id, tree); // enrolled, in no targeted group
    // A group grid closes the lesson later for this one: the date is not theirs.
    const laterGrid = await createGroup(s.id);
    await window(s.id, tree, "lesson", deadline + 10 * DAY_MS, { groupId: laterGrid.id });
    const later = await student(s.id, tree);
    await addMember(laterGrid, later.id);
    const notEnrolled = await createUser(s.id, { role: "student" });
    await addPushDevice(s.id, notEnrolled.id);
    for (const member of [due, drafting, handedIn, rejected, later, notEnrolled]) await addMember(targeted, member.id);

    // A student of another school with an enrollment row forged onto this course.
    const other = await createSchool({ expiresAt: null });
    const foreign = await createUser(other.id, { role: "student" });
    await addPushDevice(other.id, foreign.id);
    await insertEnrollment(other.id, tree.courseId, foreign.id);

    await runAt(T - 2 * HOUR_MS); // 08:00 local: before send_at_local
    expect(await rowsOf(s.id, REMINDER)).toEqual([]);

    await runAt(T);
    await runAt(T + 5 * MINUTE_MS);
    expect(await recipients(s.id, REMINDER)).toEqual([due.id, drafting.id].sort());
    const row = (await rowsOf(s.id, REMINDER)).find((r) => r.userId === due.id);
    expect(row).toMatchObject({
      aggregateType: "assignment",
      aggregateId: assignmentId,
      dedupeKey: `${REMINDER}:${assignmentId}:${deadline}:${due.id}`,
      data: { event_code: REMINDER, assignment_id: assignmentId, assignment_title: "Essay", course_title: "Algebra", deadline: new Date(deadline).toISOString(), days_left: 1 },
    });
    expect(await outboxRows(other.id)).toEqual([]);

    // The next day (0 days left) the threshold is already sent: nothing more.
    await runAt(T + DAY_MS);
    expect(await rowsOf(s.id, REMINDER)).toHaveLength(2);
  });

  it("takes the date from a module end that closes the lesson first, and repeats daily when configured", async () => {
    const { school: s, tree, assignmentId } = await school();
    const moduleEnd = Date.parse("2031-03-12T12:00:00Z"); // two local days away
    await window(s.id, tree, "module", moduleEnd);
    await window(s.id, tree, "lesson", moduleEnd + 3 * DAY_MS);
    const learner = await student(s.id, tree);
    await db().insert(schema.notificationEventSettings).values({
      tenantId: s.id, code: REMINDER, enabled: null, config: { days_before: 2, repeat_daily: true }, createdAt: EDITED, updatedAt: EDITED,
    });

    await runAt(T);
    await runAt(T + 5 * MINUTE_MS);
    await runAt(T + DAY_MS);
    const rows = await rowsOf(s.id, REMINDER);
    expect(rows.map((row) => [row.dedupeKey, (row.data as { days_left: number }).days_left])).toEqual([
      [`${REMINDER}:${assignmentId}:${moduleEnd}:${learner.id}:2031-03-10`, 2],
      [`${REMINDER}:${assignmentId}:${moduleEnd}:${learner.id}:2031-03-11`, 1],
    ]);
  });

  it("one reminder for an assignment held by two lessons closing at the same instant", async () => {
    const { school: s, tree, assignmentId } = await school();
    await refBlock(s.id, tree, 1, assignmentId);
    const deadline = Date.parse("2031-03-11T12:00:00Z");
    await window(s.id, tree, "lesson", deadline, { lessonIndex: 0 });
    await window(s.id, tree, "lesson", deadline, { lessonIndex: 1 });
    const learner = await student(s.id, tree);
    await runAt(T);
    expect(await recipients(s.id, REMINDER)).toEqual([learner.id]);
  });
});

describe("deadline scan: assignment.deadline_missed (#30)", () => {
  it("each curator gets one digest counting their students who had not handed in by the date", async () => {
    const { school: s, tree, assignmentId } = await school();
    const deadline = Date.parse("2031-03-10T07:00:00Z"); // 12:00 local
    await window(s.id, tree, "lesson", deadline);
    const [a, b, c, d] = [await student(s.id, tree), await student(s.id, tree), await student(s.id, tree), await student(s.id, tree)];
    await submission(s.id, assignmentId, c.id, "accepted", deadline - HOUR_MS);
    // Handed in after the date (a reopened attempt): still missed at the date.
    await submission(s.id, assignmentId, d.id, "submitted", deadline + MINUTE_MS);
    const individual = await curator(s.id);
    const ofGroup = await curator(s.id);
    const idle = await curator(s.id);
    await assignIndividualCurator(a.id, individual.id);
    await assignIndividualCurator(b.id, individual.id);
    await assignIndividualCurator(d.id, individual.id);
    await assignIndividualCurator(c.id, idle.id);
    const group = await createGroup(s.id);
    await addMember(group, b.id);
    await addMember(group, c.id);
    await addGroupCurator(group, ofGroup.id);

    await runAt(deadline - MINUTE_MS);
    expect(await rowsOf(s.id, MISSED)).toEqual([]);
    await runAt(deadline + 5 * MINUTE_MS);
    await runAt(deadline + 10 * MINUTE_MS);
    const rows = await rowsOf(s.id, MISSED);
    expect(Object.fromEntries(rows.map((row) => [row.userId, (row.data as { missed_count: number }).missed_count]))).toEqual({ [individual.id]: 3, [ofGroup.id]: 1 });
    expect(rows.map((row) => row.dedupeKey).sort()).toEqual([individual.id, ofGroup.id].map((id) => `${MISSED}:${assignmentId}:${deadline}:${id}`).sort());
    expect(rows[0]!.data).toMatchObject({ assignment_id: assignmentId, assignment_title: "Essay", deadline: new Date(deadline).toISOString() });
  });

  it("a digest held by the quiet hours goes out at 08:00; a run after the marks were cleared writes nothing again", async () => {
    const { school: s, tree } = await school();
    const deadline = Date.parse("2031-03-10T17:00:00Z"); // 22:00 local
    await window(s.id, tree, "lesson", deadline);
    const learner = await student(s.id, tree);
    const mentor = await curator(s.id);
    await assignIndividualCurator(learner.id, mentor.id);

    await runAt(deadline + 5 * MINUTE_MS);
    expect(await rowsOf(s.id, MISSED)).toEqual([]);
    const eight = Date.parse("2031-03-11T03:00:00Z");
    await runAt(eight);
    expect(await recipients(s.id, MISSED)).toEqual([mentor.id]);
    // The dedupe keys hold even without the marks.
    await db().delete(schema.scanMarks);
    await runAt(eight + 5 * MINUTE_MS);
    expect(await rowsOf(s.id, MISSED)).toHaveLength(1);
  });
});

describe("deadline scan: assignment events switched off", () => {
  it("writes nothing, and marks the dates handled", async () => {
    const { school: s, tree, assignmentId } = await school();
    const soon = Date.parse("2031-03-11T12:00:00Z");
    const passed = Date.parse("2031-03-10T04:00:00Z"); // 09:00 local
    await window(s.id, tree, "lesson", soon);
    await window(s.id, tree, "module", passed);
    const learner = await student(s.id, tree);
    const mentor = await curator(s.id);
    await assignIndividualCurator(learner.id, mentor.id);
    for (const code of [REMINDER, MISSED]) {
      await db().insert(schema.notificationEventSettings).values({ tenantId: s.id, code, enabled: false, config: null, createdAt: EDITED, updatedAt: EDITED });
    }
    await runAt(T);
    expect(await rowsOf(s.id, REMINDER)).toEqual([]);
    expect(await rowsOf(s.id, MISSED)).toEqual([]);
    const marks = await db().select().from(schema.scanMarks).where(eq(schema.scanMarks.tenantId, s.id));
    expect(marks.filter((m) => m.tenantId === s.id && m.markKey.startsWith("assignment:")).map((m) => m.markKey).sort()).toEqual(
      [`assignment:${assignmentId}:${passed}`, `assignment:${assignmentId}:${soon}`].sort(),
    );
  });

  it("a school whose billing gate is closed is skipped", async () => {
    const { school: s, tree } = await school({ planState: "suspended" });
    await window(s.id, tree, "lesson", Date.parse("2031-03-11T12:00:00Z"));
    await student(s.id, tree);
    await runAt(T);
    expect(await outboxRows(s.id)).toEqual([]);
  });
});

describe("deadline scan: assignment statements", () => {
  it("the statements per run do not grow with the number of students", async () => {
    const scanned = async (students: number) => {
      await db().delete(schema.scheduleWindows);
      // Only this school is open, so the scan's chunks hold it alone.
      await db().update(schema.tenants).set({ planState: "suspended" });
      const { school: s, tree } = await school();
      await window(s.id, tree, "module", Date.parse("2031-03-11T12:00:00Z"));
      for (let i = 0; i < students; i++) await student(s.id, tree);
      at(T);
      // The control database (the school lists) and both shards (the schools' statements).
      const counters = (["DB", "DB_SCHOOLS_0", "DB_SCHOOLS_1"] as const).map((name) => [name, countingD1(env[name]!)] as const);
      const written = await runDeadlineScan(jobContext({ ...env, ...Object.fromEntries(counters.map(([name, counting]) => [name, counting.db])) }));
      const sum = (key: "prepare" | "batch") => counters.reduce((total, [, counting]) => total + counting.counts[key], 0);
      return { written, prepare: sum("prepare"), batch: sum("batch") };
    };
    const few = await scanned(1);
    const many = await scanned(6);
    // One school list per shard (control); on the school's shard one batch of the purge and the two
    // boundary reads, one of the two assignment events' settings, then one of the reminder's INSERT and its mark.
    expect(few).toMatchObject({ written: 1, prepare: 9, batch: 3 });
    expect(many).toMatchObject({ written: 6, prepare: few.prepare, batch: few.batch });
  });
});
