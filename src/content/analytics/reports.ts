import { sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, rowsOf, runBatch, statementMs } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { DAY_MS, MINUTE_MS } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { curatorFiguresSql, curatorsSql, type CuratorSelection, type FigureRow } from "./curators-query";

/**
 * Snapshots of GET /analytics/curators (docs/decisions/heavy-reads-curators.md, "Curator analytics
 * snapshots"). The exact statement over a whole school holds the shard for 100 ms and more, so a
 * read answers from the snapshot of its query when there is a recent one, and the queue
 * `lms-curator-reports` recomputes snapshots in slices of students, each slice a statement of a
 * few milliseconds built from the same SQL as the live read.
 */

/** A snapshot this young is answered as it is. */
export const REPORT_FRESH_MS = MINUTE_MS;
/** An older one is still answered while it is this young (and a run is asked for); older still, the read answers live. */
export const REPORT_SERVE_MS = 10 * MINUTE_MS;
/** A run started is not started again within this long, unless it ended: a lost message is retried by a later read. */
export const REPORT_DEBOUNCE_MS = MINUTE_MS;
/** Reports nobody asked for within this long are removed when another run of the school starts. */
export const REPORT_TTL_MS = 7 * DAY_MS;
/** Reports a school keeps at once; a read of one more query answers live, as before snapshots. */
export const REPORTS_PER_SCHOOL = 64;
/** Students per slice: one statement over their pairs and activity (about 9 ms of CPU on the bench's school). */
export const REPORT_SLICE = 250;

export interface ServedReport {
  rows: FigureRow[];
  /** When the run was asked for: with an open `to`, also the end of the period it counted. */
  computedAt: number;
}

interface ReportHeader {
  id: string;
  curator_id: string | null;
  group_id: string | null;
  course_id: string | null;
  module_id: string | null;
  lesson_id: string | null;
  from_ms: number;
  to_ms: number | null;
  run_started_at: number;
  run_after: string;
}

/**
 * The normalized query: what the figures depend on, the caller's scope included (a curator's own
 * call names them), in the order of `curator_reports`' columns `curator_id` … `to_ms`. Its JSON is
 * the report's key.
 */
function reportQuery(selection: CuratorSelection, openTo: boolean): (string | number | null)[] {
  const content = selection.content;
  return [
    selection.curatorId,
    selection.groupId ?? null,
    content?.courseId ?? null,
    content?.moduleId ?? null,
    content?.lessonId ?? null,
    selection.period.from,
    openTo ? null : selection.period.to,
  ];
}

/**
 * One round trip: asks for a run when the query's snapshot is missing, older than
 * `REPORT_FRESH_MS` and no run started within the debounce (a new query counts against the
 * school's cap), and reads the snapshot if one is young enough to serve. Null: answer live. `now`
 * is the read's: with an open `to` the run counts up to it, as the live answer does.
 */
export async function servedReport(ctx: SchoolCtx<SchoolActor>, selection: CuratorSelection, openTo: boolean, now: number): Promise<ServedReport | null> {
  const t = ctx.tenantId;
  const query = reportQuery(selection, openTo);
  const key = JSON.stringify(query);
  const [asked, served] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO curator_reports (id, tenant_id, report_key, curator_id, group_id, course_id, module_id, lesson_id, from_ms, to_ms,
          requested_at, run_id, run_started_at, run_after)
        SELECT ${uuidv7(now)}, ${t}, ${key}, ${sql.join(query.map((value) => sql`${value}`), sql`, `)}, ${now}, ${uuidv7(now)}, ${now}, ''
        WHERE EXISTS (SELECT 1 FROM curator_reports e WHERE ${inSchool("e", t)} AND e.report_key = ${key})
          OR (SELECT count(*) FROM curator_reports c WHERE ${inSchool("c", t)} AND c.requested_at > ${now - REPORT_TTL_MS}) < ${REPORTS_PER_SCHOOL}
        ON CONFLICT (tenant_id, report_key) DO UPDATE SET requested_at = excluded.requested_at, run_id = excluded.run_id,
          run_started_at = excluded.run_started_at, run_after = ''
        WHERE (curator_reports.computed_at IS NULL OR curator_reports.computed_at <= ${now - REPORT_FRESH_MS})
          AND (curator_reports.run_started_at IS NULL OR curator_reports.run_started_at <= ${now - REPORT_DEBOUNCE_MS})
        RETURNING id, run_id`,
    ),
    batchable(
      ctx,
      sql`SELECT r.curator_id, u.first_name, u.last_name, u.email, r.students, r.active, r.on_time, r.quizzes, r.exams, h.computed_at
        FROM curator_reports h
          JOIN curator_report_rows r ON ${inSchool("r", t)} AND r.report_id = h.id AND r.run_id = h.served_run
          LEFT JOIN users u ON ${inSchool("u", t)} AND u.id = r.curator_id
        WHERE ${inSchool("h", t)} AND h.report_key = ${key} AND h.computed_at > ${now - REPORT_SERVE_MS} AND (r.curator_id = '' OR u.id IS NOT NULL)
        ORDER BY r.curator_id <> '', u.last_name COLLATE NOCASE, u.first_name COLLATE NOCASE, r.curator_id`,
    ),
  ]);
  const run = rowsOf<{ id: string; run_id: string }>(asked)[0];
  if (run) await sendReportRun(ctx, run.id, run.run_id);
  const rows = rowsOf<Omit<FigureRow, "kind"> & { curator_id: string; computed_at: number }>(served);
  const first = rows[0];
  if (!first) return null;
  return {
    computedAt: first.computed_at,
    rows: rows.map(({ computed_at: _computed, ...row }) =>
      row.curator_id === "" ? { ...row, kind: 1, curator_id: null, first_name: null, last_name: null, email: null } : { ...row, kind: 0 },
    ),
  };
}

/** Sends the next slices of a run; a lost message leaves the run to a read after the debounce. */
export async function sendReportRun(ctx: SchoolCtx<SchoolActor>, reportId: string, runId: string): Promise<void> {
  await ctx.env.CURATOR_REPORTS.send({ kind: "curator_report", tenant_id: ctx.tenantId, report_id: reportId, run_id: runId }).catch((err: unknown) => {
    log.error("curator report run not sent", { report_id: reportId, error: String(err) });
  });
}

/**
 * Up to `slices` slices of a run, each two statements: the slice's last student (`REPORT_SLICE`
 * students in id order after the run's cursor), then, in one batch, the slice's figures added to
 * the run's rows and the cursor moved, both only while the run is current and the cursor where
 * this slice began (a repeated message adds nothing twice). With no student left the run is
 * finished: every listed curator gets a row, the snapshot is served, older runs' rows go.
 * "gone": the run was replaced, finished or its report removed. `slowestMs`: the D1 time of the
 * slowest slice's figures, for the log.
 */
export async function runReport(
  ctx: SchoolCtx<SchoolActor>,
  input: { reportId: string; runId: string; slices: number },
): Promise<{ state: "done" | "more" | "gone"; slices: number; slowestMs: number }> {
  const t = ctx.tenantId;
  const header = await ctx.db.get<ReportHeader>(
    sql`SELECT id, curator_id, group_id, course_id, module_id, lesson_id, from_ms, to_ms, run_started_at, run_after FROM curator_reports
      WHERE ${inSchool(t)} AND id = ${input.reportId} AND run_id = ${input.runId}`,
  );
  if (!header) return { state: "gone", slices: 0, slowestMs: 0 };
  if (header.run_after === "") await removeStaleReports(ctx);
  const filtered = header.course_id !== null || header.module_id !== null || header.lesson_id !== null;
  const selection: CuratorSelection = {
    tenantId: t,
    period: { from: header.from_ms, to: header.to_ms ?? header.run_started_at },
    curatorId: header.curator_id,
    groupId: header.group_id ?? undefined,
    content: filtered ? { courseId: header.course_id ?? undefined, moduleId: header.module_id ?? undefined, lessonId: header.lesson_id ?? undefined } : null,
  };
  // The run is still the report's current one (and, for a slice, its cursor is where the slice began).
  const current = (cursor?: string) =>
    sql`EXISTS (SELECT 1 FROM curator_reports h WHERE ${inSchool("h", t)} AND h.id = ${input.reportId} AND h.run_id = ${input.runId}
      ${cursor === undefined ? sql`` : sql`AND h.run_after = ${cursor}`})`;
  let after = header.run_after;
  let slowestMs = 0;
  for (let slice = 0; slice < input.slices; slice += 1) {
    const bound = await ctx.db.get<{ up_to: string | null }>(
      sql`SELECT max(student_id) AS up_to FROM (SELECT DISTINCT cs.student_id FROM curator_students cs
        WHERE ${inSchool("cs", t)} ${header.curator_id === null ? sql`` : sql`AND cs.curator_id = ${header.curator_id}`} AND cs.student_id > ${after}
        ORDER BY cs.student_id LIMIT ${REPORT_SLICE})`,
    );
    if (!bound?.up_to) return { state: (await finishReport(ctx, selection, input, current())) ? "done" : "gone", slices: slice, slowestMs };
    const figures = curatorFiguresSql({ ...selection, students: { after, upTo: bound.up_to } });
    const [added, moved] = await runBatch(ctx, [
      batchable(
        ctx,
        sql`INSERT INTO curator_report_rows (tenant_id, report_id, run_id, curator_id, students, active, on_time, quizzes, exams)
          SELECT ${t}, ${input.reportId}, ${input.runId}, coalesce(f.curator_id, ''), f.students, f.active, f.on_time, f.quizzes, f.exams
          FROM (${figures}) f WHERE (f.kind = 1 OR f.students > 0) AND ${current(after)}
          ON CONFLICT (tenant_id, report_id, run_id, curator_id) DO UPDATE SET students = students + excluded.students, active = active + excluded.active,
            on_time = on_time + excluded.on_time, quizzes = quizzes + excluded.quizzes, exams = exams + excluded.exams`,
      ),
      batchable(
        ctx,
        sql`UPDATE curator_reports SET run_after = ${bound.up_to} WHERE ${inSchool(t)} AND id = ${input.reportId} AND run_id = ${input.runId} AND run_after = ${after}`,
      ),
    ]);
    slowestMs = Math.max(slowestMs, statementMs(added) ?? 0);
    if (changedRows(moved) === 0) return { state: "gone", slices: slice, slowestMs };
    after = bound.up_to;
  }
  return { state: "more", slices: input.slices, slowestMs };
}

/** The run's last batch: zero rows for the listed curators and the summary where no slice wrote one, then the run is served and older runs' rows go. */
async function finishReport(ctx: SchoolCtx<SchoolActor>, selection: CuratorSelection, input: { reportId: string; runId: string }, current: SQL): Promise<boolean> {
  const t = ctx.tenantId;
  const exams = selection.content ? sql`NULL` : sql`0`;
  const [, finished] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT OR IGNORE INTO curator_report_rows (tenant_id, report_id, run_id, curator_id, students, active, on_time, quizzes, exams)
        SELECT ${t}, ${input.reportId}, ${input.runId}, c.id, 0, 0, 0, 0, ${exams} FROM (${curatorsSql(selection)}) c WHERE ${current}
        UNION ALL SELECT ${t}, ${input.reportId}, ${input.runId}, '', 0, 0, 0, 0, ${exams} WHERE ${current}`,
    ),
    batchable(
      ctx,
      sql`UPDATE curator_reports SET served_run = run_id, computed_at = run_started_at, run_id = NULL, run_started_at = NULL, run_after = NULL
        WHERE ${inSchool(t)} AND id = ${input.reportId} AND run_id = ${input.runId}`,
    ),
    // Served now, so no other run is current: every other run's rows go.
    batchable(
      ctx,
      sql`DELETE FROM curator_report_rows WHERE ${inSchool(t)} AND report_id = ${input.reportId} AND run_id <> ${input.runId}
        AND EXISTS (SELECT 1 FROM curator_reports h WHERE ${inSchool("h", t)} AND h.id = ${input.reportId} AND h.served_run = ${input.runId})`,
    ),
  ]);
  return changedRows(finished) > 0;
}

/** Removes the school's reports nobody asked for within the TTL, with their rows, in one batch. */
export async function removeStaleReports(ctx: SchoolCtx<SchoolActor>): Promise<number> {
  const t = ctx.tenantId;
  const stale = sql`${inSchool("s", t)} AND s.requested_at <= ${ctx.clock.now() - REPORT_TTL_MS}`;
  const [, removed] = await runBatch(ctx, [
    batchable(ctx, sql`DELETE FROM curator_report_rows WHERE ${inSchool(t)} AND report_id IN (SELECT s.id FROM curator_reports s WHERE ${stale})`),
    batchable(ctx, sql`DELETE FROM curator_reports WHERE ${inSchool(t)} AND id IN (SELECT s.id FROM curator_reports s WHERE ${stale})`),
  ]);
  return changedRows(removed);
}
