import { stringify } from "csv-stringify/sync";
import { sql } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { localDate } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import { contentDisposition } from "../../platform/media/download-service";
import { formatTimestamp } from "../../platform/notifications/render";
import { pct } from "../common/progress";
import { enrollmentsErrors as e } from "./errors";
import { managedCourseSql, courseEnrollmentsSql } from "./list-service";
import type { CuratorRow } from "./present";
import type { EnrollmentStatus } from "./status";

/** Rows per query: a course of any size is read in slices of this many, never all at once. */
export const EXPORT_CHUNK = 500;

const HEADER = ["ФИО", "Email", "Дата записи", "Прогресс %", "Завершено блоков", "Всего блоков", "Статус", "Последняя активность"];

const STATUS_WORDS: Record<EnrollmentStatus, string> = {
  active: "активен",
  risk: "в зоне риска",
  done: "завершил",
  notstarted: "не начал",
};

/**
 * RFC 4180 with CRLF line ends (what spreadsheets expect). `escape_formulas` puts an apostrophe
 * before a text cell starting with `=`, `+`, `-`, `@`, tab or CR, so a student's name cannot run
 * as a formula when the file is opened in a spreadsheet.
 */
const CSV_OPTIONS = { record_delimiter: "windows", escape_formulas: true } as const;

const encoder = new TextEncoder();

/**
 * GET /courses/:id/enrollments/export.csv (manage_students): every active enrollment of the course
 * (a restricted curator: their own students) as a UTF-8 CSV with a byte-order mark, oldest
 * enrollment first. The body is a stream that reads `EXPORT_CHUNK` rows per query, keyset-paged by
 * (enrolled_at, id), so memory stays flat whatever the course's size; only the course lookup runs
 * before the response starts (a missing course is still a 404).
 */
export async function exportEnrollmentsCsv(ctx: SchoolCtx, input: { courseId: string }): Promise<Response> {
  const [course] = await ctx.db.all<{ id: string; slug: string; title: string }>(managedCourseSql(ctx, input.courseId));
  if (!course) throw new ApiError(e.COURSE_NOT_FOUND);
  const timeZone = ctx.tenant.timezone;
  const when = (ms: number | null) => (ms === null ? "" : formatTimestamp(ms, "ru", timeZone));
  const line = (row: CuratorRow) => [
    `${row.student_last_name} ${row.student_first_name}`.trim(),
    row.student_email,
    when(row.enrolled_at),
    pct(row.blocks_completed, row.total_blocks) ?? "",
    row.blocks_completed,
    row.total_blocks,
    STATUS_WORDS[row.status],
    when(row.activity),
  ];

  let cursor: { enrolledAt: number; id: string } | null = null;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!started) {
          started = true;
          controller.enqueue(encoder.encode("\uFEFF" + stringify([HEADER], CSV_OPTIONS)));
        }
        const chunk = courseEnrollmentsSql(ctx, { courseId: course.id, slice: { direction: "asc", limit: EXPORT_CHUNK, after: cursor } });
        const rows = await ctx.db.all<CuratorRow>(sql`SELECT * FROM (${chunk}) s ORDER BY s.enrolled_at, s.enrollment_id`);
        if (rows.length > 0) {
          controller.enqueue(encoder.encode(stringify(rows.map(line), CSV_OPTIONS)));
          const last = rows[rows.length - 1]!;
          cursor = { enrolledAt: last.enrolled_at, id: last.enrollment_id };
        }
        if (rows.length < EXPORT_CHUNK) controller.close();
      } catch (err) {
        log.error("enrollments export failed mid-stream", { request_id: ctx.requestId, course_id: course.id, error: String(err) });
        controller.error(err);
      }
    },
  });
  const day = localDate(ctx.clock.now(), timeZone);
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": contentDisposition("attachment", `${course.slug}-enrollments-${day}.csv`),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
