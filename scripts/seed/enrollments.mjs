import { upsert } from "../lib/sql.mjs";
import { COURSE, courseBlocks } from "./courses.mjs";
import { DAY_MS, DEMO, id } from "./demo.mjs";

/**
 * Sara, Timur and Lola are enrolled directly in the demo course (Omar is left to enroll himself in
 * the README tour): Sara finished module 1, Timur opened the first lesson, Lola completed the course.
 * Progress is recounted from the completions the way the Worker recounts it, only where it drifted.
 */
export function enrollments({ now }) {
  const [sara, timur, lola] = DEMO.students;
  const blocks = courseBlocks();
  const plan = [
    { student: sara, n: 1, done: 5, lastBlock: blocks[4].id },
    { student: timur, n: 2, done: 0, lastBlock: blocks[0].id },
    { student: lola, n: 3, done: blocks.length, lastBlock: blocks[blocks.length - 1].id },
  ];
  const statements = [];
  for (const entry of plan) {
    const enrollmentId = id(0xe00 + entry.n);
    statements.push(
      upsert(
        "enrollments",
        {
          id: enrollmentId,
          tenant_id: DEMO.tenantId,
          course_id: COURSE.id,
          student_id: entry.student.id,
          enrolled_at: now - 10 * DAY_MS,
          enrolled_by: DEMO.admin.id,
          removed_at: null,
          last_accessed_block_id: entry.lastBlock,
          last_accessed_at: now - entry.n * DAY_MS,
          blocks_completed: 0,
          total_blocks: 0,
          completed_at: null,
          created_at: now,
          updated_at: now,
        },
        { key: ["course_id", "student_id"], restore: ["removed_at"], touch: "updated_at" },
      ),
      upsert(
        "enrollment_sources",
        { tenant_id: DEMO.tenantId, enrollment_id: enrollmentId, course_id: COURSE.id, student_id: entry.student.id, kind: "direct", group_id: null, source_key: "direct", created_by: DEMO.admin.id, created_at: now },
        { key: ["enrollment_id", "source_key"] },
      ),
    );
    blocks.slice(0, entry.done).forEach((b, index) => {
      const lesson = b.lesson;
      statements.push(
        upsert(
          "block_completions",
          { id: id(0xf00 + entry.n * 0x10 + index), tenant_id: DEMO.tenantId, course_id: COURSE.id, lesson_id: lesson, block_id: b.id, student_id: entry.student.id, enrollment_id: enrollmentId, source: "manual", completed_at: now - (entry.n + 1) * DAY_MS + index * 60_000 },
          { key: ["block_id", "student_id"] },
        ),
      );
    });
  }
  // The Morning group is enrolled in the course too: Sara and Timur hold a group source besides their direct one.
  statements.push(
    upsert(
      "course_group_enrollments",
      { id: id(0xe10), tenant_id: DEMO.tenantId, course_id: COURSE.id, group_id: DEMO.groupId, enrolled_at: now - 10 * DAY_MS, enrolled_by: DEMO.admin.id },
      { key: ["course_id", "group_id"] },
    ),
    ...plan
      .filter((entry) => entry.student === sara || entry.student === timur)
      .map((entry) =>
        upsert(
          "enrollment_sources",
          { tenant_id: DEMO.tenantId, enrollment_id: id(0xe00 + entry.n), course_id: COURSE.id, student_id: entry.student.id, kind: "group", group_id: DEMO.groupId, source_key: `group:${DEMO.groupId}`, created_by: DEMO.admin.id, created_at: now },
          { key: ["enrollment_id", "source_key"] },
        ),
      ),
  );
  const total = `(SELECT count(*) FROM "blocks" b WHERE b."tenant_id" = '${DEMO.tenantId}' AND b."course_id" = e."course_id" AND b."deleted_at" IS NULL)`;
  const done = `(SELECT count(*) FROM "block_completions" bc JOIN "blocks" b ON b."id" = bc."block_id" AND b."deleted_at" IS NULL
    WHERE bc."tenant_id" = '${DEMO.tenantId}' AND bc."student_id" = e."student_id" AND bc."course_id" = e."course_id")`;
  statements.push(`UPDATE "enrollments" AS e SET "blocks_completed" = ${done}, "total_blocks" = ${total},
    "completed_at" = COALESCE(e."completed_at", CASE WHEN ${total} > 0 AND ${done} >= ${total} THEN ${now} END), "updated_at" = ${now}
  WHERE e."tenant_id" = '${DEMO.tenantId}' AND e."course_id" = '${COURSE.id}'
    AND (e."blocks_completed" IS NOT ${done} OR e."total_blocks" IS NOT ${total} OR (e."completed_at" IS NULL AND ${total} > 0 AND ${done} >= ${total}));`);
  return statements;
}
