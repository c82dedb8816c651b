import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import worker from "../../src";
import { setClockForTests } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { barrierD1 } from "../helpers/d1-barrier";
import { createSchool, createUser, db } from "../helpers/factories";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import { schoolD1 } from "../helpers/databases";
import { envWith } from "../helpers/wrapped-d1";

/** 10:00 in Tashkent (UTC+5): the reminder's send time has come for a deadline tomorrow at 17:00 local. */
const T = Date.parse("2031-03-10T05:00:00Z");
const DEADLINE = Date.parse("2031-03-11T12:00:00Z");
const EDITED = T - 3 * 24 * 3_600_000;

/** One cron run through the Worker's own `scheduled` handler with `db` as its D1, awaited to completion. */
async function cronRun(db: D1Database) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: T, cron: "*/5 * * * *" }), envWith(db), ctx);
  await waitOnExecutionContext(ctx);
}

describe("race: two cron runs at once", () => {
  it("both find the same due reminders and write together: one lesson.deadline_reminder per student (one row per dedupe key), one mark", async () => {
    const school = await createSchool({ expiresAt: null });
    const tree = await insertCourseTree(school.id, { title: "Algebra", shape: [1, 1, 1] });
    const lessonId = tree.lessonIds[0]!;
    await db().insert(schema.scheduleWindows).values({
      id: uuidv7(), tenantId: school.id, courseId: tree.courseId, groupId: null, gridKey: "", level: "lesson", moduleId: tree.modules[0]!.id, lessonId, nodeId: lessonId,
      startsAt: null, endsAt: DEADLINE, allowBeforeStart: false, allowAfterEnd: false, createdAt: EDITED, updatedAt: EDITED,
    });
    const students = [];
    for (let i = 0; i < 3; i++) {
      const student = await createUser(school.id, { role: "student" });
      await addPushDevice(school.id, student.id);
      await insertEnrollment(school.id, tree.courseId, student.id);
      students.push(student.id);
    }
    setClockForTests({ now: () => T });

    // Held: each run's batch of pushes and marks, until both runs have read that nothing is marked yet.
    const barrier = barrierD1(await schoolD1(school.id), { held: /INSERT INTO scan_marks/, parties: 2 });
    await Promise.all([cronRun(barrier.db), cronRun(barrier.db)]);
    expect(barrier.stats.releases).toEqual([2]);

    const rows = (await outboxRows(school.id)).filter((row) => row.eventCode === "lesson.deadline_reminder");
    expect(rows.map((row) => row.dedupeKey).sort()).toEqual(students.map((id) => `lesson.deadline_reminder:${lessonId}:${DEADLINE}:${id}`).sort());
    expect(await db().select({ key: schema.scanMarks.markKey }).from(schema.scanMarks)).toEqual([{ key: `end:${lessonId}:${DEADLINE}` }]);
  });
});
