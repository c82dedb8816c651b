import { sql, type SQL } from "drizzle-orm";
import { sqlLiteral } from "../../core/db/sql-ids";
import { assignmentClosingOfSql } from "../assignments/deadline";
import type { Period } from "./window";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { DAY_MS } from "./activity-days";

/**
 * The one statement behind GET /analytics/curators: every figure of every row and of the summary,
 * set-based. The period's activity is read once, by time, per kind of activity; the students in
 * scope are joined to it once, so the cost never grows with a round trip per curator.
 */

export interface CuratorSelection {
  tenantId: string;
  period: Period;
  /** One curator (a curator's own call, or an admin's `curator_id`); null: every active curator. */
  curatorId: string | null;
  groupId: string | undefined;
  /** A learning-content filter; null: all activity (exams applicable). */
  content: { courseId?: string; moduleId?: string; lessonId?: string } | null;
  /** A slice of the students (ids after `after`, up to `upTo`), for a snapshot's staged run; absent: all. */
  students?: { after: string; upTo: string };
}

export interface FigureRow {
  /** 0 for a curator's row, 1 for the summary. */
  kind: 0 | 1;
  curator_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  students: number;
  active: number;
  on_time: number;
  quizzes: number;
  exams: number | null;
}

// The school id and the period come from the guard and the parsed query, never as raw text: as
// literals they keep the statement (the closing rule repeats the school id) under D1's 100
// bound parameters.

export function curatorFiguresSql(selection: CuratorSelection): SQL {
  const t = sqlLiteral(selection.tenantId);
  const within = (column: SQL) => sql`${column} BETWEEN ${sqlLiteral(selection.period.from)} AND ${sqlLiteral(selection.period.to)}`;
  const inGroup = selection.groupId === undefined ? sql`` : sql`AND cs.student_id IN (SELECT user_id FROM in_group)`;
  const content = selection.content;
  // A slice reads its students' rows only: each kind of row is read by (time, student) or by
  // student, so the range narrows the index walk rather than filtering after it (the daily flags
  // by student: `+ad.day` keeps SQLite off their day index, which would walk the whole school).
  const slice = selection.students;
  const inSlice = (column: SQL) => (slice ? sql`AND ${column} > ${slice.after} AND ${column} <= ${slice.upTo}` : sql``);

  // Activity is read from the period's side: each kind is a range of a (tenant, instant, student)
  // index, so the cost follows the period's activity, not a probe per student per kind. At most
  // four arms: D1 refuses compound SELECTs of more terms than that. Without a content filter the
  // whole UTC days inside the period come from the daily flags (`student_activity_days`) and only
  // the two partial edge days from these indexes; the flags know no content, so a filtered report
  // reads the whole period here (docs/decisions/heavy-reads.md, "Fourth pass: daily activity").
  const days = content ? null : wholeDays(selection.period);
  const ranges = days ? days.edges : [[selection.period.from, selection.period.to] as const];
  const inScope = (column: SQL, type: string | null) =>
    content ? (type === null ? sql`AND ${column} IN (SELECT id FROM scope)` : sql`AND ${column} IN (SELECT ref_id FROM scope WHERE type = ${sqlLiteral(type)})`) : sql``;
  // Late as the worksheet reads it: handed in after the student's effective closing date. Only
  // the hand-ins of students in scope past the earliest end of any window on a lesson holding the
  // assignment (or its module or course) are measured: a student's closing date is never earlier
  // than that, and hand-ins before it, the usual case, cost one index probe. Their closing dates
  // are read once for the set (`assignmentClosingOfSql`), not per hand-in.
  const earliestEnd = sql`(SELECT min(lw.ends_at) FROM blocks lb
      JOIN schedule_windows lw ON ${inSchool("lw", t)} AND lw.course_id = lb.course_id AND lw.deleted_at IS NULL AND lw.node_id IN (lb.course_id, lb.module_id, lb.lesson_id)
    WHERE ${inSchool("lb", t)} AND lb.ref_id = ls.assignment_id AND lb.type = 'assignment_ref' AND lb.deleted_at IS NULL)`;
  // One range of instants per arm, so each reads its index by range (an OR of two ranges on one
  // column would read the school's whole index); started or submitted in the range: SQLite reads
  // the two time indexes and merges the rows.
  const activity = ([from, to]: readonly [number, number]) => {
    const inRange = (column: SQL) => sql`${column} BETWEEN ${sqlLiteral(from)} AND ${sqlLiteral(to)}`;
    const either = (alias: string) => sql`(${inRange(sql.raw(`${alias}.started_at`))} OR ${inRange(sql.raw(`${alias}.submitted_at`))})`;
    return sql.join(
      [
        sql`SELECT bc.student_id AS id, 0 AS quiz, 0 AS exam, 0 AS handed FROM block_completions bc
      WHERE ${inSchool("bc", t)} AND ${inRange(sql`bc.completed_at`)} ${inSlice(sql`bc.student_id`)} ${inScope(sql`bc.block_id`, null)}`,
        sql`SELECT qa.user_id, ${inRange(sql`qa.submitted_at`)}, 0, 0 FROM quiz_attempts qa
      WHERE ${inSchool("qa", t)} AND ${either("qa")} AND qa.exam_attempt_id IS NULL ${inSlice(sql`qa.user_id`)} ${inScope(sql`qa.quiz_id`, "quiz_ref")}`,
        ...(content ? [] : [sql`SELECT ea.user_id, 0, ${inRange(sql`ea.submitted_at`)}, 0 FROM exam_attempts ea WHERE ${inSchool("ea", t)} AND ${either("ea")} ${inSlice(sql`ea.user_id`)}`]),
        sql`SELECT ls.student_id, 0, 0, 1 FROM submissions ls
      WHERE ${inSchool("ls", t)} AND ${inRange(sql`ls.submitted_at`)} ${inSlice(sql`ls.student_id`)} ${inScope(sql`ls.assignment_id`, "assignment_ref")}`,
      ],
      sql` UNION ALL `,
    );
  };
  // Every row of the daily flags is some activity. Each range's arms are a nested compound of
  // their own, so no compound has more than four terms.
  const activityRows = !days?.whole
    ? activity(ranges[0]!)
    : sql.join(
        [
          ...ranges.map((range) => sql`SELECT * FROM (${activity(range)})`),
          sql`SELECT ad.student_id AS id, ad.quiz_submitted AS quiz, ad.exam_submitted AS exam, ad.handed_in AS handed
        FROM student_activity_days ad WHERE ${inSchool("ad", t)} AND ${slice ? sql`+ad.day` : sql`ad.day`} BETWEEN ${sqlLiteral(days.whole.first)} AND ${sqlLiteral(days.whole.last)} ${inSlice(sql`ad.student_id`)}`,
        ],
        sql` UNION ALL `,
      );

  // `student_rows` holds a row per pair (no activity), per activity and per late student. A
  // student's flags reach each of their pairs by a window over the student's rows, sorted once: a
  // join of pairs to per-student flags needs an index SQLite builds only when it guesses the sizes
  // right, and with no table statistics on D1 it did not for a slice of students. Every late
  // student handed in within the period, so one row marks them; a probe of `late` in each hand-in
  // arm made SQLite build it once per arm.
  // `pairs` reads the scope kept in `curator_students` (src/platform/schools/curator-students.ts)
  // from the few curators outwards by its key (a slice: each curator's students in its range);
  // CROSS JOIN fixes that order.
  return sql`WITH
    cur AS MATERIALIZED (${curatorsSql(selection)}),
    in_group AS (SELECT gm.user_id FROM group_members gm JOIN groups g ON g.id = gm.group_id AND ${liveInSchool("g", t)}
      WHERE ${inSchool("gm", t)} AND gm.group_id = ${selection.groupId ?? null}),
    pairs AS MATERIALIZED (
      SELECT c.id AS curator_id, cs.student_id FROM cur c
        CROSS JOIN curator_students cs ON ${inSchool("cs", t)} AND cs.curator_id = c.id ${inSlice(sql`cs.student_id`)}
        WHERE 1 ${inGroup}),
    scope AS MATERIALIZED (${contentBlocksSql(t, content)}),
    measured AS MATERIALIZED (SELECT ls.student_id, ls.assignment_id, ls.submitted_at FROM submissions ls
      WHERE ${inSchool("ls", t)} AND ${within(sql`ls.submitted_at`)} ${inSlice(sql`ls.student_id`)} ${inScope(sql`ls.assignment_id`, "assignment_ref")}
        AND ls.student_id IN (SELECT student_id FROM pairs) AND ls.submitted_at > ${earliestEnd}),
    measured_pairs AS MATERIALIZED (SELECT DISTINCT student_id, assignment_id FROM measured),
    closing AS MATERIALIZED (${assignmentClosingOfSql(t, sql`measured_pairs`)}),
    late AS MATERIALIZED (SELECT DISTINCT m.student_id FROM closing cl
      JOIN measured m ON m.student_id = cl.student_id AND m.assignment_id = cl.assignment_id WHERE m.submitted_at > cl.closes_at),
    student_rows AS (SELECT p.student_id AS id, p.curator_id, 0 AS act, 0 AS quiz, 0 AS exam, 0 AS handed, 0 AS late FROM pairs p
      UNION ALL SELECT id, NULL, 1, quiz, exam, handed, 0 FROM (${activityRows})
      UNION ALL SELECT student_id, NULL, 1, 0, 0, 1, 1 FROM late),
    paired AS MATERIALIZED (SELECT id, curator_id, active, handed AND NOT late AS on_time, quizzes, exams FROM (
        SELECT id, curator_id, max(act) OVER w AS active, max(handed) OVER w AS handed, max(late) OVER w AS late,
          max(quiz) OVER w AS quizzes, max(exam) OVER w AS exams
        FROM student_rows WINDOW w AS (PARTITION BY id))
      WHERE curator_id IS NOT NULL),
    flags AS (SELECT id, max(active) AS active, max(on_time) AS on_time, max(quizzes) AS quizzes, max(exams) AS exams FROM paired GROUP BY id)
  SELECT 0 AS kind, c.id AS curator_id, c.first_name, c.last_name, c.email, coalesce(n.students, 0) AS students,
      coalesce(n.active, 0) AS active, coalesce(n.on_time, 0) AS on_time, coalesce(n.quizzes, 0) AS quizzes,
      ${content ? sql`NULL` : sql`coalesce(n.exams, 0)`} AS exams
    FROM cur c LEFT JOIN (SELECT curator_id, count(*) AS students, sum(active) AS active, sum(on_time) AS on_time,
        sum(quizzes) AS quizzes, sum(exams) AS exams
      FROM paired GROUP BY curator_id) n ON n.curator_id = c.id
  UNION ALL
  SELECT 1, NULL, NULL, NULL, NULL, count(*), coalesce(sum(active), 0), coalesce(sum(on_time), 0), coalesce(sum(quizzes), 0),
      ${content ? sql`NULL` : sql`coalesce(sum(exams), 0)`}
    FROM flags
  ORDER BY kind, last_name COLLATE NOCASE, first_name COLLATE NOCASE, curator_id`;
}

/** The curators a selection lists (alias `u`): every active curator of the school, or the one asked for. */
export function curatorsSql(selection: Pick<CuratorSelection, "tenantId" | "curatorId">): SQL {
  const onlyCurator = selection.curatorId === null ? sql`` : sql`AND u.id = ${selection.curatorId}`;
  return sql`SELECT u.id, u.first_name, u.last_name, u.email FROM users u
      WHERE ${inSchool("u", sqlLiteral(selection.tenantId))} AND u.role = 'curator' AND u.deleted_at IS NULL AND u.is_active = 1 ${onlyCurator}`;
}

/**
 * The whole UTC days inside the period (none before 1970: the flags never hold those instants) and
 * the instant ranges left at its edges, read from the raw rows. No whole day: the period is one edge.
 */
function wholeDays(period: Period): { whole?: { first: number; last: number }; edges: (readonly [number, number])[] } {
  const first = Math.max(0, Math.ceil(period.from / DAY_MS));
  const last = Math.floor((period.to + 1) / DAY_MS) - 1;
  if (first > last) return { edges: [[period.from, period.to]] };
  const edges = [[period.from, first * DAY_MS - 1] as const, [(last + 1) * DAY_MS, period.to] as const].filter(([from, to]) => from <= to);
  return { whole: { first, last }, edges };
}

/**
 * The live blocks of the filtered content (course, module and lesson ids all apply), in a live
 * tree: its completions, the quizzes of its `quiz_ref` blocks and the assignments of its
 * `assignment_ref` blocks are the activity that counts. No filter: no rows (never read).
 */
function contentBlocksSql(t: SQL, content: CuratorSelection["content"]): SQL {
  if (!content) return sql`SELECT NULL AS id, NULL AS type, NULL AS ref_id WHERE 0`;
  const conditions = [
    content.courseId === undefined ? null : sql`AND b.course_id = ${content.courseId}`,
    content.moduleId === undefined ? null : sql`AND b.module_id = ${content.moduleId}`,
    content.lessonId === undefined ? null : sql`AND b.lesson_id = ${content.lessonId}`,
  ].filter((condition) => condition !== null);
  return sql`SELECT b.id, b.type, b.ref_id FROM blocks b
      JOIN lessons l ON l.id = b.lesson_id AND ${liveInSchool("l", t)}
      JOIN course_modules m ON m.id = b.module_id AND ${liveInSchool("m", t)}
      JOIN courses c ON c.id = b.course_id AND ${liveInSchool("c", t)}
    WHERE ${liveInSchool("b", t)} ${sql.join(conditions, sql` `)}`;
}
