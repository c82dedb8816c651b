import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import type { Env } from "../../../src/core/env";
import { jobContext } from "../../../src/contributors";
import { DAY_MS, HOUR_MS, setClockForTests } from "../../../src/core/lib/clock";
import { uuidv7 } from "../../../src/core/lib/ids";
import { runDeadlineScan } from "../../../src/content/schedule/deadline-scan";
import { runProgressScan } from "../../../src/content/enrollments/progress-scan";
import { insertCourseTree, type Tree } from "../../helpers/courses";
import { countingEveryD1 } from "../../helpers/d1-counter";
import { createSchool, createUser, db } from "../../helpers/factories";
import { addPushDevice } from "../../notifications/helpers";
import { fixtureD1 } from "../../helpers/databases";

/**
 * The scans at the size the issue names: a school of 5,000 students in a course of 200 lessons
 * with a window on every lesson. Rows are made with INSERT … SELECT so the set-up stays quick.
 */

/** 10:00 in Tashkent (UTC+5). */
const T = Date.parse("2031-03-10T05:00:00Z");
const EDITED = T - 3 * DAY_MS;

const at = (ms: number) => setClockForTests({ now: () => ms });
afterEach(() => setClockForTests(null));

/** Delivery is not under test: the "rows are due" message goes nowhere. */
const scanContext = (bindings: Env = env as Env) => jobContext({ ...bindings, PUSH_OUTBOX: { sendBatch: async () => undefined } as unknown as typeof env.PUSH_OUTBOX });

async function counted(scan: (ctx: ReturnType<typeof scanContext>) => Promise<unknown>) {
  const counting = countingEveryD1();
  await scan(scanContext(counting.env));
  return { ...counting.counts };
}

const hex = (bytes: number) => `lower(hex(randomblob(${bytes})))`;

/** `count` students of the school, each with a push device and an enrollment in the course, idle since `EDITED`. */
async function students(tenantId: string, tree: Tree, count: number) {
  // One real student and device are the template of the rest (a valid password hash and sealed token).
  const template = await createUser(tenantId, { role: "student" });
  await addPushDevice(tenantId, template.id);
  const series = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1})`;
  if (count > 1) await fixtureD1.batch([
    fixtureD1.prepare(
      `${series} INSERT INTO users (id, tenant_id, email, password_hash, first_name, last_name, role, is_active, email_verified_at, created_at, updated_at)
       SELECT ${hex(16)}, tenant_id, 'scale.' || i || '.' || ${hex(4)} || '@example.test', password_hash, first_name, last_name, role, 1, email_verified_at, created_at, updated_at
       FROM users, n WHERE users.id = ?`,
    ).bind(template.id),
  ]);
  const columns = (await env.DB_SCHOOLS_0.prepare(`SELECT name FROM pragma_table_info('push_devices')`).all<{ name: string }>()).results.map((row) => row.name);
  const fresh: Record<string, string> = { id: hex(16), user_id: "u.id", installation_id: hex(16), token_hash: hex(32) };
  const select = columns.map((name) => fresh[name] ?? `d.${name}`).join(", ");
  await fixtureD1.batch([
    fixtureD1.prepare(
      `INSERT INTO push_devices (${columns.join(", ")}) SELECT ${select} FROM push_devices d, users u
       WHERE d.user_id = ?1 AND u.tenant_id = ?2 AND u.role = 'student' AND u.id <> ?1`,
    ).bind(template.id, tenantId),
    fixtureD1.prepare(
      `INSERT INTO enrollments (id, tenant_id, course_id, student_id, enrolled_at, total_blocks, created_at, updated_at)
       SELECT ${hex(16)}, ?1, ?2, u.id, ?3, ?4, ?3, ?3 FROM users u WHERE u.tenant_id = ?1 AND u.role = 'student'`,
    ).bind(tenantId, tree.courseId, EDITED, tree.blockIds.length),
    fixtureD1.prepare(
      `INSERT INTO enrollment_sources (tenant_id, enrollment_id, course_id, student_id, kind, source_key, created_at)
       SELECT tenant_id, id, course_id, student_id, 'direct', 'direct', created_at FROM enrollments WHERE tenant_id = ?1 AND course_id = ?2`,
    ).bind(tenantId, tree.courseId),
  ]);
}

/** A window on every lesson: lesson i closes i days after tomorrow, so one deadline is due for a reminder. */
async function windows(tenantId: string, tree: Tree, opening: number) {
  const rows = tree.modules.flatMap((module) => module.lessons.map((lesson) => ({ moduleId: module.id, lessonId: lesson.id })));
  const values = rows.map((row, i) => ({
    id: uuidv7(), tenantId, courseId: tree.courseId, groupId: null, gridKey: "", level: "lesson" as const, moduleId: row.moduleId, lessonId: row.lessonId, nodeId: row.lessonId,
    // The first lesson opened an hour ago; the others opened before the horizon.
    startsAt: i === 0 ? opening : EDITED + HOUR_MS, endsAt: T + (i + 1) * DAY_MS + 2 * HOUR_MS, allowBeforeStart: false, allowAfterEnd: false,
    createdAt: EDITED, updatedAt: EDITED,
  }));
  for (let i = 0; i < values.length; i += 6) await db().insert(schema.scheduleWindows).values(values.slice(i, i + 6));
}

async function outboxCount(tenantId: string, code: string) {
  return (await fixtureD1.prepare(`SELECT count(*) AS n FROM notification_outbox WHERE tenant_id = ? AND event_code = ?`).bind(tenantId, code).first<{ n: number }>())!.n;
}

/**
 * A school with a 200-lesson course (10 modules of 20 lessons) and `count` enrolled students; the
 * first lesson also holds an assignment, so its deadline is the assignment's closing date too.
 */
async function scaledSchool(count: number) {
  const school = await createSchool({ expiresAt: null });
  const tree = await insertCourseTree(school.id, { shape: [10, 20, 1] });
  const assignmentId = uuidv7();
  await db().insert(schema.assignments).values({ id: assignmentId, tenantId: school.id, title: "Essay", createdAt: EDITED, updatedAt: EDITED });
  await db().insert(schema.blocks).values({
    id: uuidv7(), tenantId: school.id, courseId: tree.courseId, moduleId: tree.modules[0]!.id, lessonId: tree.lessonIds[0]!, type: "assignment_ref",
    payload: {}, refId: assignmentId, position: 1, createdAt: EDITED, updatedAt: EDITED,
  });
  await students(school.id, tree, count);
  await windows(school.id, tree, T - HOUR_MS);
  return school;
}

describe("deadline and progress scans at 5,000 students and 200 lessons", () => {
  it("write every push with the same number of statements as for one student", async () => {
    at(T);
    // Each school alone in the scan: the first is scanned and retired before the second exists.
    const small = await scaledSchool(1);
    const smallDeadline = await counted((ctx) => runDeadlineScan(ctx));
    expect(await outboxCount(small.id, "lesson.window_opened")).toBe(1);
    expect(await outboxCount(small.id, "lesson.deadline_reminder")).toBe(1);
    expect(await outboxCount(small.id, "assignment.deadline_reminder")).toBe(1);
    await db().update(schema.tenants).set({ planState: "suspended" });

    const large = await scaledSchool(5_000);
    const largeDeadline = await counted((ctx) => runDeadlineScan(ctx));
    // One opening, one lesson reminder (the deadline of tomorrow) and one assignment reminder per
    // student; the 199 later deadlines wait.
    expect(await outboxCount(large.id, "lesson.window_opened")).toBe(5_000);
    expect(await outboxCount(large.id, "lesson.deadline_reminder")).toBe(5_000);
    expect(await outboxCount(large.id, "assignment.deadline_reminder")).toBe(5_000);
    expect(largeDeadline).toEqual(smallDeadline);
    // One school list per shard (control database); on the school's shard one batch of the purge, the
    // reminder overrides and the lesson and assignment boundaries, one of the settings reads, one of
    // three pushes and three marks.
    expect(largeDeadline).toEqual({ prepare: 18, batch: 3, exec: 0 });

    // A second run skips the three marked boundaries; it still reads the settings for the lesson
    // deadlines of the next days (not due yet) and writes nothing: the school lists, then two batches on the shard.
    const again = await counted((ctx) => runDeadlineScan(ctx));
    expect(again).toEqual({ prepare: 10, batch: 2, exec: 0 });
    expect(await outboxCount(large.id, "lesson.deadline_reminder")).toBe(5_000);
    expect(await outboxCount(large.id, "assignment.deadline_reminder")).toBe(5_000);

    // 18:00 local five days later: every student has been idle for eight days (the default is seven).
    at(T + 5 * DAY_MS + 8 * HOUR_MS);
    const progress = await counted((ctx) => runProgressScan(ctx));
    expect(await outboxCount(large.id, "progress.stalled")).toBe(5_000);
    // One school list per shard (control database), then the school's batch on its shard.
    expect(progress).toEqual({ prepare: 6, batch: 2, exec: 0 });
  });
});

describe("deadline scan: a run over its boundary limit", () => {
  it("continues with the next boundaries in the next run and never repeats one", async () => {
    await db().update(schema.tenants).set({ planState: "suspended" });
    const school = await createSchool({ expiresAt: null });
    const tree = await insertCourseTree(school.id, { shape: [1, 5, 1] });
    await students(school.id, tree, 2);
    // Five lessons opened during the last hours.
    const lessons = tree.modules[0]!.lessons;
    for (const [i, lesson] of lessons.entries()) {
      await db().insert(schema.scheduleWindows).values({
        id: uuidv7(), tenantId: school.id, courseId: tree.courseId, groupId: null, gridKey: "", level: "lesson", moduleId: tree.modules[0]!.id, lessonId: lesson.id,
        nodeId: lesson.id, startsAt: T - (i + 1) * HOUR_MS, endsAt: null, allowBeforeStart: false, allowAfterEnd: false, createdAt: EDITED, updatedAt: EDITED,
      });
    }
    at(T);
    const written: number[] = [];
    for (let run = 0; run < 4; run++) written.push(await runDeadlineScan(scanContext(), { maxBoundaries: 2 }));
    // Two boundaries a run for two students, then the fifth, then nothing left.
    expect(written).toEqual([4, 4, 2, 0]);
    const rows = await fixtureD1.prepare(`SELECT aggregate_id AS lesson, count(*) AS n FROM notification_outbox WHERE tenant_id = ? AND event_code = 'lesson.window_opened' GROUP BY aggregate_id`)
      .bind(school.id)
      .all<{ lesson: string; n: number }>();
    expect(rows.results.map((row) => [row.lesson, row.n]).sort()).toEqual(lessons.map((lesson) => [lesson.id, 2]).sort());
  });
});
