import { sql, type SQL } from "drizzle-orm";
import { sqlLiteral } from "../../core/db/sql-ids";
import { assignmentTargetsStudentSql } from "../assignments/access";
import { assignmentClosingSql } from "../assignments/deadline";
import { lessonVisibleToSql } from "../common/access";
import { effectiveWindowsSql } from "../common/windows";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The deadline scan's sets of students, each one SELECT of user ids over the school's enrollments:
 * the recipients of one boundary are selected by the statement that writes their pushes, so the
 * scan's statement count never depends on the number of students.
 */

export type OpeningLevel = "course" | "module" | "lesson";

export const OPENED = { course: "course.window_opened", module: "module.window_opened", lesson: "lesson.window_opened" } as const;

/** Ids and instants the scan read from the database go into its statements as literals (see `sqlLiteral`). */
const lit = sqlLiteral;

/** One window boundary as the scan reads it: a node of a course and an instant. */
export interface Boundary {
  tenantId: string;
  courseId: string;
  moduleId: string | null;
  nodeId: string;
  level: OpeningLevel;
  at: number;
}

/** The student's effective window on `nodeId` satisfies `condition` (over alias `w`). */
function effectiveHolds(tenantId: string, courseId: string, nodeId: string | SQL, student: SQL, condition: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM (${effectiveWindowsSql(tenantId, lit(courseId), student, { nodeIds: [typeof nodeId === "string" ? lit(nodeId) : nodeId] })}) w WHERE ${condition})`;
}

/** A window that closes its node at `now` (the availability rule's `closureOf`, over alias `w`). */
const closedAt = (now: number) => sql`((w.starts_at > ${lit(now)} AND w.allow_before_start = 0) OR (w.ends_at < ${lit(now)} AND w.allow_after_end = 0))`;

/** Live, active students of the school with an active enrollment in a live published course (alias `e`). */
function enrolledStudents(tenantId: string, courseId: string, extra: SQL): SQL {
  return sql`SELECT e.student_id FROM enrollments e
      JOIN courses ec ON ec.id = e.course_id AND ${liveInSchool("ec", lit(tenantId))} AND ec.status = 'published'
      JOIN users eu ON eu.id = e.student_id AND ${inSchool("eu", lit(tenantId))} AND eu.role = 'student' AND eu.deleted_at IS NULL AND eu.is_active = 1
    WHERE ${inSchool("e", lit(tenantId))} AND e.course_id = ${lit(courseId)} AND e.removed_at IS NULL AND ${extra}`;
}

/** The lesson is live and the student sees it (lesson access groups). */
function seesLesson(tenantId: string, lessonId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM lessons sl WHERE sl.id = ${lit(lessonId)} AND ${liveInSchool("sl", lit(tenantId))})
    AND ${lessonVisibleToSql(tenantId, sql`${lit(lessonId)}`, sql`e.student_id`)}`;
}

/** The student passed the lesson: it has live blocks and the student completed every one. */
export function passedLessonSql(tenantId: string, lessonId: string, student: SQL): SQL {
  return sql`(EXISTS (SELECT 1 FROM blocks pb WHERE ${inSchool("pb", lit(tenantId))} AND pb.lesson_id = ${lit(lessonId)} AND pb.deleted_at IS NULL)
    AND NOT EXISTS (SELECT 1 FROM blocks pb WHERE ${inSchool("pb", lit(tenantId))} AND pb.lesson_id = ${lit(lessonId)} AND pb.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM block_completions pc WHERE ${inSchool("pc", lit(tenantId))} AND pc.block_id = pb.id AND pc.student_id = ${student})))`;
}

/**
 * Students whose effective lesson window closes at `deadline` (without `allow_after_end`) and who
 * have not passed the lesson: the reminder's recipients before the deadline, the digest's count after.
 */
export function unpassedAtDeadlineSql(boundary: Boundary): SQL {
  const { tenantId, courseId, nodeId, at } = boundary;
  return enrolledStudents(
    tenantId,
    courseId,
    sql`${seesLesson(tenantId, nodeId)}
      AND ${effectiveHolds(tenantId, courseId, nodeId, sql`e.student_id`, sql`w.ends_at = ${lit(at)} AND w.allow_after_end = 0`)}
      AND NOT ${passedLessonSql(tenantId, nodeId, sql`e.student_id`)}`,
  );
}

/** How many of `students` the recipient curator (`r` of the enqueue statement) has in scope. */
export function curatedCountSql(tenantId: string, students: SQL): SQL {
  return sql`(SELECT count(*) FROM users ms WHERE ${inSchool("ms", lit(tenantId))} AND ms.id IN (${students})
    AND (ms.individual_curator_id = r.id
      OR EXISTS (SELECT 1 FROM group_members mgm
        JOIN groups mg ON mg.id = mgm.group_id AND ${liveInSchool("mg", lit(tenantId))}
        JOIN group_curators mgc ON mgc.group_id = mgm.group_id AND ${inSchool("mgc", lit(tenantId))} AND mgc.curator_id = r.id
        WHERE ${inSchool("mgm", lit(tenantId))} AND mgm.user_id = ms.id)))`;
}

export interface Ancestor {
  id: string;
  level: "course" | "module";
  /** The ancestor's opening event is on for the school: only then does its push stand for this one. */
  announced: boolean;
}

/**
 * Students for whom the node opens at `boundary.at`: their effective window starts there without
 * `allow_before_start`, it has not ended, and every ancestor is open now. Nested openings go out
 * once, the outermost: an ancestor that opened at or after this boundary (within the horizon)
 * stands for it, and so does one that opened before it but whose own push this run has not
 * written yet (the statements run innermost first, so "not written yet" means "in this run").
 */
export function openedStudentsSql(boundary: Boundary, ancestors: readonly Ancestor[], now: number, horizonStart: number): SQL {
  const { tenantId, courseId, nodeId, at } = boundary;
  const own = effectiveHolds(
    tenantId,
    courseId,
    nodeId,
    sql`e.student_id`,
    sql`w.starts_at = ${lit(at)} AND w.allow_before_start = 0 AND NOT COALESCE(w.ends_at < ${lit(now)} AND w.allow_after_end = 0, 0)`,
  );
  const outer = ancestors.map((ancestor) => {
    const key = sql`${OPENED[ancestor.level]} || ':' || ${lit(ancestor.id)} || ':' || w.starts_at || ':' || e.student_id`;
    const coveredBy = ancestor.announced
      ? sql`OR (w.allow_before_start = 0 AND w.starts_at > ${lit(horizonStart)}
          AND EXISTS (SELECT 1 FROM schedule_windows aw WHERE ${inSchool("aw", lit(tenantId))} AND aw.node_id = ${lit(ancestor.id)}
            AND aw.deleted_at IS NULL AND aw.starts_at = w.starts_at AND aw.updated_at < aw.starts_at)
          AND (w.starts_at >= ${lit(at)} OR NOT EXISTS (SELECT 1 FROM notification_outbox ao WHERE ao.dedupe_key = ${key})))`
      : sql``;
    return sql`AND NOT ${effectiveHolds(tenantId, courseId, ancestor.id, sql`e.student_id`, sql`${closedAt(now)} ${coveredBy}`)}`;
  });
  const visible = boundary.level === "lesson" ? sql`AND ${seesLesson(tenantId, nodeId)}` : sql``;
  return enrolledStudents(tenantId, courseId, sql`${own} ${visible} ${sql.join(outer, sql` `)}`);
}

/** An assignment's closing date as the scan reads it: the instant some window closing it ends. */
export interface AssignmentBoundary {
  tenantId: string;
  assignmentId: string;
  at: number;
}

/**
 * Students who may submit the assignment (its group targets) and whose effective closing date of
 * it is the boundary, without a submission beyond `draft`: the reminder's recipients before the
 * date. For the digest after it, `handedInBy` is the date, so work handed in later (after a
 * reopen) still counts as missed. Only students enrolled in a course holding the assignment are
 * looked at; the closing date checks the rest (published course, visible lesson, windows).
 */
export function unsubmittedAtClosingSql(boundary: AssignmentBoundary, handedInBy?: number): SQL {
  const tenant = lit(boundary.tenantId);
  const assignment = lit(boundary.assignmentId);
  const late = handedInBy === undefined ? sql`` : sql`AND us.submitted_at <= ${lit(handedInBy)}`;
  return sql`SELECT DISTINCT e.student_id FROM enrollments e
      JOIN users eu ON eu.id = e.student_id AND ${inSchool("eu", tenant)} AND eu.role = 'student' AND eu.deleted_at IS NULL AND eu.is_active = 1
    WHERE ${inSchool("e", tenant)} AND e.removed_at IS NULL
      AND e.course_id IN (SELECT ub.course_id FROM blocks ub
        WHERE ${inSchool("ub", tenant)} AND ub.ref_id = ${assignment} AND ub.type = 'assignment_ref' AND ub.deleted_at IS NULL)
      AND ${assignmentTargetsStudentSql(boundary.tenantId, assignment, sql`e.student_id`)}
      AND ${assignmentClosingSql(tenant, assignment, sql`e.student_id`)} = ${lit(boundary.at)}
      AND NOT EXISTS (SELECT 1 FROM submissions us WHERE ${inSchool("us", tenant)} AND us.assignment_id = ${assignment}
        AND us.student_id = e.student_id AND us.status <> 'draft' ${late})`;
}
