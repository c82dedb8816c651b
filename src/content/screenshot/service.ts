import { sql, type SQL } from "drizzle-orm";
import { assignments, exams, lessons, quizzes } from "../../db/schema";
import { batchable, changedRows, rowsOf, runBatch } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { CONTENT_TYPES, type ContentType, type ScreenshotSettings, type ScreenshotUpdateBody, type ScreenshotUpdateResult } from "./schemas";
import { liveInSchool } from "../../core/db/conditions";

/**
 * The school-wide screenshot policy (the server publishes the flag, the mobile client enforces it).
 * Counts and bulk switches cover live rows only; a switch never moves `updated_at`, since the
 * content itself did not change.
 */

const TABLES = { lessons, quizzes, assignments, exams } as const;

interface CountRow {
  type: ContentType;
  total: number;
  blocked: number | null;
}

/** One SELECT: a row per content type with its live total and how many block screenshots. */
function settingsSql(tenantId: string): SQL {
  const parts = CONTENT_TYPES.map(
    (type) => sql`SELECT ${type} AS type, count(*) AS total, sum(screenshot_protection_enabled) AS blocked
      FROM ${TABLES[type]} WHERE ${liveInSchool(tenantId)}`,
  );
  return sql.join(parts, sql` UNION ALL `);
}

function toSettings(rows: CountRow[]): ScreenshotSettings {
  const byType = new Map(rows.map((row) => [row.type, row]));
  const entry = (type: ContentType) => {
    const row = byType.get(type);
    const total = row?.total ?? 0;
    const blocked = row?.blocked ?? 0;
    return { total, screenshots_allowed: total - blocked, screenshots_blocked: blocked };
  };
  return { lessons: entry("lessons"), quizzes: entry("quizzes"), assignments: entry("assignments"), exams: entry("exams") };
}

export async function screenshotSettings(ctx: SchoolCtx): Promise<ScreenshotSettings> {
  return toSettings(await ctx.db.all<CountRow>(settingsSql(ctx.tenantId)));
}

/** Sets the flag on every live object of the type whose value differs; the counts are read in the same batch. */
export async function updateScreenshotProtection(ctx: SchoolCtx, input: { body: ScreenshotUpdateBody }): Promise<ScreenshotUpdateResult> {
  const { content_type: type, enabled } = input.body;
  const flag = enabled ? 1 : 0;
  const [update, counts] = await runBatch(ctx, [
    batchable(ctx, sql`UPDATE ${TABLES[type]} SET screenshot_protection_enabled = ${flag}
      WHERE ${liveInSchool(ctx.tenantId)} AND screenshot_protection_enabled <> ${flag}`),
    batchable(ctx, settingsSql(ctx.tenantId)),
  ]);
  return {
    content_type: type,
    screenshot_protection_enabled: enabled,
    updated_count: changedRows(update),
    settings: toSettings(rowsOf<CountRow>(counts)),
  };
}
