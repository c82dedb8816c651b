import { sql, type SQL } from "drizzle-orm";
import { runBatch, changedRows, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { DAY_MS, MINUTE_MS } from "../../core/lib/clock";
import { eventDefinition } from "../../platform/notifications/catalog";
import { billingOpenSql, dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { prefetchSchoolEvents, schoolEvent } from "../../platform/notifications/settings";
import { schoolChunks } from "../../platform/schools/school-chunks";
import { nodeWindowSql } from "../common/windows";
import { activitySql } from "./status";
import { inSchool, liveInSchool } from "../../core/db/conditions";

const STALLED = "progress.stalled";
const DIGEST = "progress.students_stalled";
/** The digest has no config of its own; the contract sends it at this local time. */
const DIGEST_AT_LOCAL = "09:00";

/**
 * Schools one run looks at. Each school costs at most two INSERT … SELECT statements whatever its
 * size, so this caps a run's work; with more schools, consecutive runs take the next slice in turn
 * (the slice follows the cron tick, so no cursor is stored).
 */
export const SCHOOLS_PER_RUN = 25;
const RUN_INTERVAL_MS = 5 * MINUTE_MS;
const STATEMENTS_PER_BATCH = 50;

interface Local {
  date: string;
  time: string;
}

function localParts(ms: number, timeZone: string): Local {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" })
      .formatToParts(ms)
      .map((part) => [part.type, part.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** Wall-clock minus UTC at an instant, in ms. */
function zoneOffset(ms: number, timeZone: string): number {
  const { date, time } = localParts(ms, timeZone);
  return Date.parse(`${date}T${time}:00Z`) - Math.floor(ms / MINUTE_MS) * MINUTE_MS;
}

/** The instant a local date and "HH:MM" name in a zone (the offset is looked up twice, for DST edges). */
function localInstant(date: string, time: string, timeZone: string): number {
  const wall = Date.parse(`${date}T${time}:00Z`);
  return wall - zoneOffset(wall - zoneOffset(wall, timeZone), timeZone);
}

const previousDate = (date: string): string => new Date(Date.parse(`${date}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);

/**
 * A school's stalled enrollments as rows `(enrollment_id, student_id, course_id, title, pct,
 * last_ms)`: active (not removed), not completed, in a live published course that is open for the
 * student (its effective window does not close it now), and idle since `last_ms` = the later of
 * the enrollment and its latest activity (course access or block completion) for at least
 * `inactiveDays`. `began` bounds (inclusive) when the episode began: `last_ms + inactiveDays`.
 * `student` narrows it to one student (SQL naming the enclosing row), read through the
 * (tenant, student) index.
 */
function stalledSql(tenantId: string, now: number, inactiveDays: number, began: { from?: number; before: number }, student?: SQL): SQL {
  const idle = inactiveDays * DAY_MS;
  const start = sql`json_extract(x.win, '$[0]')`;
  const end = sql`json_extract(x.win, '$[1]')`;
  return sql`SELECT x.enrollment_id, x.student_id, x.course_id, x.title, x.pct, x.last_ms FROM (
      SELECT e.id AS enrollment_id, e.student_id, e.course_id, c.title,
             CASE WHEN e.total_blocks > 0 THEN CAST(ROUND(MIN(e.blocks_completed, e.total_blocks) * 100.0 / e.total_blocks) AS INTEGER) ELSE 0 END AS pct,
             MAX(e.enrolled_at, COALESCE(${activitySql(tenantId)}, 0)) AS last_ms,
             ${nodeWindowSql(tenantId, sql`e.course_id`, sql`e.student_id`, sql`e.course_id`)} AS win
      FROM enrollments e
      JOIN courses c ON c.id = e.course_id AND ${liveInSchool("c", tenantId)} AND c.status = 'published'
      JOIN users u ON u.id = e.student_id AND ${inSchool("u", tenantId)} AND u.role = 'student' AND u.deleted_at IS NULL AND u.is_active = 1
      WHERE ${inSchool("e", tenantId)} ${student ? sql`AND e.student_id = ${student}` : sql``} AND e.removed_at IS NULL AND e.completed_at IS NULL) x
    WHERE x.last_ms + ${idle} <= ${began.before} ${began.from === undefined ? sql`` : sql`AND x.last_ms + ${idle} >= ${began.from}`}
      AND (x.win IS NULL OR (
        NOT (${start} IS NOT NULL AND ${now} < ${start} AND COALESCE(json_extract(x.win, '$[2]'), 0) = 0)
        AND NOT (${end} IS NOT NULL AND ${now} > ${end} AND COALESCE(json_extract(x.win, '$[3]'), 0) = 0)))`;
}

/**
 * #35 for one school: one reminder per student, for one stalled episode not yet reminded of (the
 * longest idle first, so the student's other courses get their turn on later days), unless the
 * student already got one since local midnight.
 */
function stalledReminders(ctx: School, tenantId: string, now: number, inactiveDays: number, dayStart: number): Promise<BatchItem> {
  // The statement repeats these subqueries (a pick per variable); their values are written inline
  // (escaped) so it stays under D1's limit of bound parameters.
  const pending = (student?: SQL) =>
    sql`SELECT s.* FROM (${stalledSql(tenantId, now, inactiveDays, { before: now }, student)}) s
      WHERE NOT EXISTS (SELECT 1 FROM notification_outbox o
        WHERE o.dedupe_key = ${`${STALLED}:`} || s.enrollment_id || ':' || s.last_ms || ':' || s.student_id)`.inlineParams();
  // Each recipient's pick reads only that student's enrollments.
  const pick = (column: string) =>
    sql`(SELECT p.${sql.raw(column)} FROM (${pending(sql`r.id`)}) p ORDER BY p.last_ms, p.enrollment_id LIMIT 1)`;
  const students = sql`SELECT q.student_id FROM (${pending()}) q
    WHERE NOT EXISTS (SELECT 1 FROM notification_outbox o
      WHERE ${inSchool("o", tenantId)} AND o.user_id = q.student_id AND o.event_code = ${STALLED} AND o.created_at >= ${dayStart})`;
  return enqueue(
    ctx,
    STALLED,
    { token: "student", studentIds: students },
    { course_title: pick("title"), inactive_days: inactiveDays, pct: pick("pct") },
    { id: pick("course_id") },
    sql`${`${STALLED}:`} || ${pick("enrollment_id")} || ':' || ${pick("last_ms")}`,
  );
}

/** The students of the curator `r` (rule 2: individually assigned, or members of the curator's live groups). */
function curatorStudentsSql(tenantId: string): SQL {
  return sql`SELECT s.id FROM users s WHERE ${inSchool("s", tenantId)} AND s.individual_curator_id = r.id AND s.role = 'student'
    UNION
    SELECT gm.user_id FROM group_members gm
      JOIN group_curators gc ON gc.group_id = gm.group_id AND gc.curator_id = r.id AND ${inSchool("gc", tenantId)}
      JOIN groups g ON g.id = gm.group_id AND ${liveInSchool("g", tenantId)}
    WHERE ${inSchool("gm", tenantId)}`;
}

/**
 * #36 for one school: each curator of a student whose stalled episode began in the 24 hours up to
 * today's send time gets the count of those students among their own, once per local date.
 */
function stalledDigest(ctx: School, tenantId: string, now: number, inactiveDays: number, today: string, sendAt: number, sentYesterday: number): Promise<BatchItem> {
  const students = sql`SELECT DISTINCT d.student_id FROM (${stalledSql(tenantId, now, inactiveDays, { from: sentYesterday, before: sendAt - 1 })}) d`.inlineParams();
  return enqueue(
    ctx,
    DIGEST,
    { token: "student_curators", studentIds: students },
    { stalled_count: sql`(SELECT COUNT(*) FROM (${students}) n WHERE n.student_id IN (${curatorStudentsSql(tenantId)}))`, inactive_days: inactiveDays },
    { id: tenantId },
    { exact: sql`${`${DIGEST}:`} || r.id || ${`:${today}`}` },
  );
}

/** The slice of schools this run looks at, turning with the cron tick. */
export function schoolsForRun<T>(schools: T[], now: number): T[] {
  if (schools.length <= SCHOOLS_PER_RUN) return schools;
  const start = (Math.floor(now / RUN_INTERVAL_MS) * SCHOOLS_PER_RUN) % schools.length;
  return [...schools.slice(start), ...schools.slice(0, start)].slice(0, SCHOOLS_PER_RUN);
}

/**
 * The progress scan (cron): school by school, in each school's time zone, #35 from its
 * `send_at_local` and #36 from 09:00 on. Schools whose billing gate is closed are skipped; a
 * disabled event produces nothing. Dedupe keys make a re-run insert nothing. The open schools are
 * listed shard by shard from the control database (`schoolChunks`); the run's slice of them is
 * then worked shard by shard: one batch reads their settings, one writes their pushes.
 */
export async function runProgressScan(ctx: ServiceContext): Promise<{ queued: number }> {
  const now = ctx.clock.now();
  const open: School[] = [];
  for await (const { schools } of schoolChunks(ctx, "progress_scan", billingOpenSql(sql`tenants`, now))) open.push(...schools);
  const picked = schoolsForRun(open, now);
  let queued = 0;
  for (const shard of new Set(picked.map((school) => school.tenant.shard))) {
    queued += await scanShard(picked.filter((school) => school.tenant.shard === shard), now);
  }
  return { queued };
}

type School = SchoolCtx<SystemActor>;

/** The run's schools of one shard. */
async function scanShard(schools: School[], now: number): Promise<number> {
  const definitions = [eventDefinition(STALLED)!, eventDefinition(DIGEST)!];
  const prefetches = schools.map((school) => prefetchSchoolEvents(school, school.tenantId, definitions));
  const read = await runBatch(schools[0]!, prefetches.flatMap((prefetch) => prefetch.statements));
  prefetches.forEach((prefetch, i) => prefetch.remember(read.slice(i * definitions.length, (i + 1) * definitions.length)));

  const statements: BatchItem[] = [];
  for (const school of schools) {
    const stalled = await schoolEvent(school, school.tenantId, definitions[0]!);
    if (!stalled) continue;
    const timezone = school.tenant.timezone;
    const config = stalled.event.config as { inactive_days: number; send_at_local: string };
    const local = localParts(now, timezone);
    if (stalled.event.enabled && local.time >= config.send_at_local) {
      statements.push(await stalledReminders(school, school.tenantId, now, config.inactive_days, localInstant(local.date, "00:00", timezone)));
    }
    if ((await schoolEvent(school, school.tenantId, definitions[1]!))?.event.enabled && local.time >= DIGEST_AT_LOCAL) {
      const sendAt = localInstant(local.date, DIGEST_AT_LOCAL, timezone);
      const sentYesterday = localInstant(previousDate(local.date), DIGEST_AT_LOCAL, timezone);
      statements.push(await stalledDigest(school, school.tenantId, now, config.inactive_days, local.date, sendAt, sentYesterday));
    }
  }
  let queued = 0;
  for (let i = 0; i < statements.length; i += STATEMENTS_PER_BATCH) {
    for (const result of await runBatch(schools[0]!, statements.slice(i, i + STATEMENTS_PER_BATCH))) queued += changedRows(result);
  }
  await Promise.all(schools.map((school) => dispatchQueued(school)));
  return queued;
}
