import { sql } from "drizzle-orm";
import { registerAudienceField, uuidValues, type AudienceRule, type CompileContext } from "../../platform/notifications/audience";
import { registerOptionKind } from "../../platform/notifications/audience-service";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What the course tree adds to campaign audiences (loaded with the enrollments routes): the fields
 * `course_enrollment` and `lesson_completed`, and the picker's `course`, `module` and `lesson`
 * options. Conditions are on the student `u`; every subquery filters by the school and reads live
 * rows only.
 */

/** The student has an active enrollment in one of the listed live courses. */
const enrolledInAny = (rule: AudienceRule, at: CompileContext) => sql`EXISTS (SELECT 1 FROM enrollments e
    JOIN courses c ON c.id = e.course_id AND ${liveInSchool("c", at.tenantId)}
    WHERE ${inSchool("e", at.tenantId)} AND e.student_id = u.id AND e.removed_at IS NULL
      AND e.course_id IN (SELECT value FROM json_each(${JSON.stringify(uuidValues(rule))})))`;

/**
 * The student passed one of the listed live lessons: it has at least one live block and the
 * student completed every one of them (the lesson's `passed`).
 */
const passedAny = (rule: AudienceRule, at: CompileContext) => sql`EXISTS (SELECT 1 FROM lessons l
    WHERE ${liveInSchool("l", at.tenantId)}
      AND l.id IN (SELECT value FROM json_each(${JSON.stringify(uuidValues(rule))}))
      AND EXISTS (SELECT 1 FROM blocks b WHERE ${inSchool("b", at.tenantId)} AND b.lesson_id = l.id AND b.deleted_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE ${inSchool("b", at.tenantId)} AND b.lesson_id = l.id AND b.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM block_completions bc WHERE ${inSchool("bc", at.tenantId)} AND bc.block_id = b.id AND bc.student_id = u.id)))`;

registerAudienceField("course_enrollment", {
  operators: {
    in: (rule, at) => enrolledInAny(rule, at),
    not_in: (rule, at) => sql`NOT ${enrolledInAny(rule, at)}`,
  },
});

registerAudienceField("lesson_completed", {
  operators: {
    in: (rule, at) => passedAny(rule, at),
    not_in: (rule, at) => sql`NOT ${passedAny(rule, at)}`,
  },
});

// Courses are the school's, not a curator's: every manager sees them all.
registerOptionKind(
  "course",
  (ctx) => sql`SELECT c.id, c.title AS label,
      c.status || ' · ' || (SELECT count(*) FROM enrollments e WHERE ${inSchool("e", ctx.tenantId)} AND e.course_id = c.id AND e.removed_at IS NULL) || ' students' AS subtitle
    FROM courses c WHERE ${liveInSchool("c", ctx.tenantId)}`,
);

registerOptionKind(
  "module",
  (ctx) => sql`SELECT m.id, m.title AS label, c.title AS subtitle
    FROM course_modules m JOIN courses c ON c.id = m.course_id AND ${liveInSchool("c", ctx.tenantId)}
    WHERE ${liveInSchool("m", ctx.tenantId)}`,
);

registerOptionKind(
  "lesson",
  (ctx) => sql`SELECT l.id, l.title AS label, c.title || ' / ' || m.title AS subtitle
    FROM lessons l
      JOIN course_modules m ON m.id = l.module_id AND ${liveInSchool("m", ctx.tenantId)}
      JOIN courses c ON c.id = l.course_id AND ${liveInSchool("c", ctx.tenantId)}
    WHERE ${liveInSchool("l", ctx.tenantId)}`,
);
