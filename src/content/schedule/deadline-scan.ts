import { sql } from "drizzle-orm";
import { batchable, runBatch, changedRows, rowsOf, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { DAY_MS } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import { eventDefinition, type EventCode } from "../../platform/notifications/catalog";
import { billingOpenSql, dispatchQueued, enqueue, timestamp } from "../../platform/notifications/enqueue";
import { prefetchSchoolEvents, schoolEvent, type SchoolEvent } from "../../platform/notifications/settings";
import { schoolChunks } from "../../platform/schools/school-chunks";
import { ASSIGNMENT_MISSED, ASSIGNMENT_REMINDER, assignmentDeadlines, assignmentDeadlineWork, dueAssignmentDeadlinesSql, reminderDaysSql, type AssignmentDeadline } from "./assignment-scan";
import { curatedCountSql, OPENED, openedStudentsSql, unpassedAtDeadlineSql, type Ancestor, type Boundary, type OpeningLevel } from "./deadline-scan-sql";
import { deadlineHandledUntil, HELD, HORIZON, passedDue, releaseAt, reminderConfig, reminderDue } from "./deadline-scan-timing";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The deadline scan (#21 `lesson.deadline_reminder`, #23-#25 `*.window_opened`, #29
 * `lesson.deadline_missed`, and with assignment-scan.ts #22 and #30 on assignment closing dates),
 * run by the 5-minute cron, school by school in the school's zone.
 *
 * It keeps no record of its previous run: every run looks at the boundaries of the last
 * `HORIZON` and lets the dedupe keys drop what an earlier run already wrote, so a skipped or
 * failed run is caught up by the next one (the same day, as the contract asks) and a repeated run
 * writes nothing. A boundary counts only for a window last edited before it (a window created
 * with a start in the past announces nothing). Work is bounded per run: one read of the due
 * boundaries of every school (at most `MAX_BOUNDARIES`, and as many assignment closing dates),
 * one read of settings per event, then one INSERT … SELECT per boundary and event, whatever the
 * number of students.
 */

const REMINDER = "lesson.deadline_reminder";
const MISSED = "lesson.deadline_missed";

const MAX_BOUNDARIES = 500;
/** Handled boundaries whose marks expired this long ago are forgotten. */
const MARK_RETENTION = 2 * DAY_MS;
const BOUNDARIES_PER_BATCH = 25;

interface BoundaryRow extends Boundary {
  kind: "start" | "end";
  timezone: string;
  /** The latest end among the windows that open here, null when one has none. */
  endsAt: number | null;
  nodeTitle: string;
  courseTitle: string;
}

type School = SchoolCtx<SystemActor>;

/**
 * The statement reading one school's boundaries that may be due, on live nodes of live published
 * courses: starts (openings) and lesson ends (missed digests) of the horizon plus the quiet-hours
 * hold, and lesson ends of the school's coming reminder days. The school's billing gate was
 * checked on the control database (`schoolChunks`).
 */
function dueBoundariesSql(school: School, now: number, limit: number): BatchItem {
  const tenantId = school.tenantId;
  const past = now - HORIZON - HELD;
  const ahead = sql`${now} + (${reminderDaysSql(tenantId, REMINDER)} + 2) * ${DAY_MS}`;
  return batchable(school, sql`SELECT b.course_id, b.module_id, b.node_id, b.level, b.kind, b.at,
        max(b.ends_at) AS ends_at, max(b.ends_at IS NULL) AS open_ended, c.title AS course_title,
        COALESCE(m.title, l.title, c.title) AS node_title
      FROM (SELECT course_id, module_id, node_id, level, 'start' AS kind, starts_at AS at, ends_at FROM schedule_windows
              WHERE ${liveInSchool(tenantId)} AND allow_before_start = 0 AND starts_at > ${past} AND starts_at <= ${now} AND updated_at < starts_at
            UNION ALL
            SELECT course_id, module_id, node_id, level, 'end', ends_at, ends_at FROM schedule_windows
              WHERE ${liveInSchool(tenantId)} AND level = 'lesson' AND allow_after_end = 0 AND ends_at > ${past} AND ends_at <= ${ahead}
                AND (ends_at > ${now} OR updated_at < ends_at)) b
      JOIN courses c ON c.id = b.course_id AND ${liveInSchool("c", tenantId)} AND c.status = 'published'
      LEFT JOIN course_modules m ON b.level = 'module' AND m.id = b.node_id AND ${liveInSchool("m", tenantId)}
      LEFT JOIN lessons l ON b.level = 'lesson' AND l.id = b.node_id AND ${liveInSchool("l", tenantId)}
      WHERE (b.level = 'course' OR m.id IS NOT NULL OR l.id IS NOT NULL)
        AND NOT EXISTS (SELECT 1 FROM scan_marks s WHERE s.mark_key = b.kind || ':' || b.node_id || ':' || b.at AND s.until > ${now})
      GROUP BY b.node_id, b.kind, b.at
      ORDER BY b.at > ${now}, b.at
      LIMIT ${limit}`);
}

/** The rows of `dueBoundariesSql` as boundaries of the school. */
function boundaries(school: School, result: unknown): BoundaryRow[] {
  return rowsOf<{
    course_id: string; module_id: string | null; node_id: string; level: OpeningLevel;
    kind: "start" | "end"; at: number; ends_at: number | null; open_ended: number; node_title: string; course_title: string;
  }>(result).map((row) => ({
    tenantId: school.tenantId, timezone: school.tenant.timezone, courseId: row.course_id, moduleId: row.module_id, nodeId: row.node_id, level: row.level,
    kind: row.kind, at: row.at, endsAt: row.open_ended ? null : row.ends_at, nodeTitle: row.node_title, courseTitle: row.course_title,
  }));
}

/** Handled boundaries of the school whose marks expired `MARK_RETENTION` ago are forgotten. */
function forgetMarks(school: School, now: number): BatchItem {
  return batchable(school, sql`DELETE FROM scan_marks WHERE rowid IN (
    SELECT rowid FROM scan_marks WHERE ${inSchool(school.tenantId)} AND until < ${now - MARK_RETENTION} LIMIT 1000)`);
}

type Settings = Partial<Record<EventCode, Map<string, SchoolEvent>>>;

const enabled = (settings: Settings, code: EventCode, tenantId: string) => settings[code]?.get(tenantId)?.event.enabled === true;

/** The opening's push, or null when it is not due or its event is off. */
async function openingPush(ctx: School, b: BoundaryRow, settings: Settings, now: number): Promise<BatchItem | null> {
  const code = OPENED[b.level];
  if (!enabled(settings, code, b.tenantId) || !passedDue(b.at, now, b.timezone)) return null;
  const ancestors: Ancestor[] = [];
  if (b.level !== "course") ancestors.push({ id: b.courseId, level: "course", announced: enabled(settings, OPENED.course, b.tenantId) });
  if (b.level === "lesson" && b.moduleId) ancestors.push({ id: b.moduleId, level: "module", announced: enabled(settings, OPENED.module, b.tenantId) });
  const ends = b.endsAt === null ? null : timestamp(b.endsAt);
  const variables =
    b.level === "course" ? { course_title: b.courseTitle, ends_at: ends }
    : b.level === "module" ? { module_title: b.nodeTitle, course_title: b.courseTitle, ends_at: ends }
    : { lesson_title: b.nodeTitle, course_title: b.courseTitle, deadline: ends };
  return enqueue(
    ctx,
    code,
    { token: "students", studentIds: openedStudentsSql(b, ancestors, now, now - HORIZON - HELD) },
    variables,
    { id: b.nodeId },
    `${code}:${b.nodeId}:${b.at}`,
  );
}

/** The reminder before a lesson deadline: due from `send_at_local` on the first local day within `days_before`. */
async function reminderPush(ctx: School, b: BoundaryRow, settings: Settings, now: number): Promise<BatchItem | null> {
  const config = reminderConfig(settings[REMINDER]?.get(b.tenantId));
  const due = config && reminderDue(config, b.at, now, b.timezone);
  if (!config || !due) return null;
  const prefix = `${REMINDER}:${b.nodeId}:${b.at}`;
  const dedupe = config.repeat_daily ? { exact: sql`${prefix} || ':' || r.id || ':' || ${due.localDate}` } : prefix;
  return enqueue(
    ctx,
    REMINDER,
    { token: "students", studentIds: unpassedAtDeadlineSql(b) },
    { lesson_title: b.nodeTitle, course_title: b.courseTitle, deadline: timestamp(b.at), days_left: due.daysLeft },
    { id: b.nodeId },
    dedupe,
  );
}

/** The digest after a lesson deadline: each curator of a student who missed it, with the count of theirs. */
async function missedPush(ctx: School, b: BoundaryRow, settings: Settings, now: number): Promise<BatchItem | null> {
  if (!enabled(settings, MISSED, b.tenantId) || !passedDue(b.at, now, b.timezone)) return null;
  const missed = unpassedAtDeadlineSql(b);
  return enqueue(
    ctx,
    MISSED,
    { token: "student_curators", studentIds: missed },
    { lesson_title: b.nodeTitle, course_title: b.courseTitle, deadline: timestamp(b.at), missed_count: curatedCountSql(b.tenantId, missed) },
    { id: b.nodeId },
    `${MISSED}:${b.nodeId}:${b.at}`,
  );
}

/**
 * The mark that hides a handled boundary from the next runs, written in the batch of its push
 * (or alone when its event is off for the school): until the deadline for a reminder, until the
 * next local midnight for a daily one, for good (past the horizon) for openings and digests.
 */
function mark(ctx: School, tenantId: string, key: string, until: number): BatchItem {
  return batchable(ctx, sql`INSERT INTO scan_marks (tenant_id, mark_key, until) VALUES (${tenantId}, ${key}, ${until})
    ON CONFLICT (mark_key) DO UPDATE SET until = excluded.until`);
}

/** When a handled boundary may be looked at again, or null while it is not handled (not due yet). */
function handledUntil(b: BoundaryRow, settings: Settings, now: number): number | null {
  if (b.kind === "end") return deadlineHandledUntil(b.at, b.timezone, settings[REMINDER]?.get(b.tenantId), enabled(settings, MISSED, b.tenantId), now);
  if (!enabled(settings, OPENED[b.level], b.tenantId)) return b.at + HORIZON + HELD + 1;
  return releaseAt(b.at, b.timezone) <= now ? b.at + HORIZON + HELD + 1 : null;
}

const ORDER: Record<OpeningLevel, number> = { lesson: 0, module: 1, course: 2 };

/**
 * Cron: produce every due deadline-scan push, shard by shard and school by school (schools whose
 * billing gate is open); answers how many outbox rows it wrote. Per chunk of schools: one batch
 * reads each school's due boundaries and closing dates (and forgets its old marks), one batch
 * reads the settings of the schools that have some, then the pushes and marks are written.
 */
export async function runDeadlineScan(ctx: ServiceContext, options: { maxBoundaries?: number } = {}): Promise<number> {
  const now = ctx.clock.now();
  const limit = options.maxBoundaries ?? MAX_BOUNDARIES;
  const left = { boundaries: limit, deadlines: limit };
  let written = 0;
  for await (const { schools } of schoolChunks(ctx, "deadline_scan", billingOpenSql(sql`tenants`, now))) {
    if (left.boundaries === 0 && left.deadlines === 0) break;
    const found = await runBatch(
      schools[0]!,
      schools.flatMap((school) => [
        forgetMarks(school, now),
        ...(left.boundaries > 0 ? [dueBoundariesSql(school, now, left.boundaries)] : []),
        ...(left.deadlines > 0 ? [dueAssignmentDeadlinesSql(school, now, left.deadlines)] : []),
      ]),
    );
    const per = found.length / schools.length;
    const before = { ...left };
    const work: SchoolWork[] = [];
    for (const [i, school] of schools.entries()) {
      const b = left.boundaries > 0 ? boundaries(school, found[i * per + 1]).slice(0, left.boundaries) : [];
      const d = left.deadlines > 0 ? assignmentDeadlines(school, found[i * per + per - 1]).slice(0, left.deadlines) : [];
      left.boundaries -= b.length;
      left.deadlines -= d.length;
      if (b.length + d.length > 0) work.push({ school, boundaries: b, deadlines: d });
    }
    if (left.boundaries === 0 && before.boundaries > 0) log.warn("deadline scan: boundary limit reached; the rest waits for the next runs", { limit });
    if (left.deadlines === 0 && before.deadlines > 0) log.warn("deadline scan: assignment deadline limit reached; the rest waits for the next runs", { limit });
    written += await scanChunk(work, now);
  }
  return written;
}

interface SchoolWork {
  school: School;
  boundaries: BoundaryRow[];
  deadlines: AssignmentDeadline[];
}

/** The chunk's schools with due boundaries: their settings in one batch, then each boundary's push and mark. */
async function scanChunk(work: SchoolWork[], now: number): Promise<number> {
  if (work.length === 0) return 0;
  // Settings only for the kinds of boundary a school has: an assignment-free school reads what it always did.
  const lessonCodes: EventCode[] = [REMINDER, MISSED, OPENED.course, OPENED.module, OPENED.lesson];
  const assignmentCodes: EventCode[] = [ASSIGNMENT_REMINDER, ASSIGNMENT_MISSED];
  const codesOf = (w: SchoolWork) => [...(w.boundaries.length > 0 ? lessonCodes : []), ...(w.deadlines.length > 0 ? assignmentCodes : [])];
  const prefetches = work.map((w) => prefetchSchoolEvents(w.school, w.school.tenantId, codesOf(w).map((code) => eventDefinition(code)!)));
  const read = await runBatch(work[0]!.school, prefetches.flatMap((prefetch) => prefetch.statements));
  let at = 0;
  for (const prefetch of prefetches) {
    prefetch.remember(read.slice(at, at + prefetch.statements.length));
    at += prefetch.statements.length;
  }

  const items: { push: BatchItem | null; mark: BatchItem | null }[] = [];
  for (const w of work) {
    const settings: Settings = {};
    for (const code of codesOf(w)) {
      const event = await schoolEvent(w.school, w.school.tenantId, eventDefinition(code)!);
      settings[code] = new Map(event ? [[w.school.tenantId, event]] : []);
    }
    items.push(...(await schoolItems(w, settings, now)));
  }
  let written = 0;
  for (let i = 0; i < items.length; i += BOUNDARIES_PER_BATCH) {
    const slice = items.slice(i, i + BOUNDARIES_PER_BATCH);
    const pushItems = slice.flatMap((w) => (w.push ? [w.push] : []));
    const markItems = slice.flatMap((w) => (w.mark ? [w.mark] : []));
    if (pushItems.length + markItems.length === 0) continue;
    const results = await runBatch(work[0]!.school, [...pushItems, ...markItems]);
    for (const result of results.slice(0, pushItems.length)) written += changedRows(result);
  }
  await Promise.all(work.map((w) => dispatchQueued(w.school)));
  return written;
}

/** One school's pushes and marks; a boundary's push and its mark travel in one batch, so a failed batch leaves both unwritten. */
async function schoolItems({ school, boundaries: found, deadlines }: SchoolWork, settings: Settings, now: number) {
  // Innermost openings first: an outer opening written earlier in the same run would hide nothing.
  const starts = found.filter((b) => b.kind === "start").sort((x, y) => ORDER[x.level] - ORDER[y.level]);
  const ends = found.filter((b) => b.kind === "end");
  const ordered = [...starts, ...ends];
  const pushes = await Promise.all(
    ordered.map((b) => (b.kind === "start" ? openingPush(school, b, settings, now) : b.at > now ? reminderPush(school, b, settings, now) : missedPush(school, b, settings, now))),
  );
  const items = ordered.map((b, i) => {
    const until = handledUntil(b, settings, now);
    return { push: pushes[i] ?? null, mark: until === null ? null : mark(school, b.tenantId, `${b.kind}:${b.nodeId}:${b.at}`, until) };
  });
  for (const d of deadlines) {
    const { push, markKey, until } = await assignmentDeadlineWork(school, d, settings, now);
    items.push({ push, mark: until === null ? null : mark(school, d.tenantId, markKey, until) });
  }
  return items;
}
