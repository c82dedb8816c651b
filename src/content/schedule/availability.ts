import { sql } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { isStaff } from "../common/access";
import { closureOf, lessonChainWindowsSql, parseWindows, type EffectiveWindow } from "../common/windows";
import { scheduleErrors } from "./errors";
import { liveInSchool } from "../../core/db/conditions";

/**
 * The schedule's gates: the first-attempt rule that starts and submissions apply over the
 * availability rule (common/windows.ts), and its 403.
 */

/**
 * The first-attempt rule over a lesson's chain: a start that has not come closes always; a passed
 * end closes only a first attempt (a student who started or submitted before it may retake or
 * resubmit afterwards).
 */
export function scheduleRefuses(windows: ReadonlyMap<string, EffectiveWindow>, chain: readonly string[], now: number, firstAttempt: boolean): boolean {
  const closures = chain.map((id) => closureOf(windows.get(id), now));
  return closures.includes("course_not_started") || (firstAttempt && closures.includes("course_ended"));
}

/**
 * For the attempt and submission areas: 403 `schedule_window_closed` when the lesson's dates
 * close it for the calling student (the first-attempt rule); staff pass. A lesson that does not
 * exist passes: the caller's own lookup answers that. One query.
 */
export async function scheduleGate(ctx: SchoolCtx, input: { lessonId: string; firstAttempt: boolean }): Promise<void> {
  if (isStaff(ctx.actor)) return;
  const [row] = await ctx.db.all<{ course_id: string; module_id: string; windows: string }>(
    sql`SELECT sl.course_id, sl.module_id, ${lessonChainWindowsSql(ctx, sql`sl`)} AS windows
      FROM lessons sl WHERE sl.id = ${input.lessonId} AND ${liveInSchool("sl", ctx.tenantId)}`,
  );
  if (!row) return;
  const chain = [row.course_id, row.module_id, input.lessonId];
  if (scheduleRefuses(parseWindows(row.windows), chain, ctx.clock.now(), input.firstAttempt)) throw new ApiError(scheduleErrors.WINDOW_CLOSED);
}

/** A lesson with its chain's effective windows (`lessonChainWindowsSql` as `windows`). */
export interface LessonWindows {
  id: string;
  module_id: string;
  course_id: string;
  windows: string | null;
}

/**
 * The first-attempt rule over several lessons that each give access to the same thing (a quiz
 * referenced in more than one lesson): the most lenient wins, so it refuses only when every
 * lesson refuses. No lessons refuses nothing (the caller's own lookup decides access).
 */
export function scheduleRefusesEverywhere(lessons: readonly LessonWindows[], now: number, firstAttempt: boolean): boolean {
  return lessons.length > 0 && lessons.every((lesson) => scheduleRefuses(parseWindows(lesson.windows), [lesson.course_id, lesson.module_id, lesson.id], now, firstAttempt));
}
