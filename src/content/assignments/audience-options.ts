import { sql } from "drizzle-orm";
import { registerOptionKind } from "../../platform/notifications/audience-service";
import { liveInSchool } from "../../core/db/conditions";

/**
 * The campaign picker's `assignment` options (loaded with the assignment routes): every live
 * assignment of the school, subtitled with its maximum score and attempts ("max 100.00 · 3
 * attempts", "max 50.50 · unlimited attempts"). Assignments are the school's: every manager sees
 * them all.
 */
registerOptionKind(
  "assignment",
  (ctx) => sql`SELECT a.id, a.title AS label,
      'max ' || printf('%d.%02d', a.max_score_hundredths / 100, a.max_score_hundredths % 100) || ' · ' ||
      CASE WHEN a.max_attempts IS NULL THEN 'unlimited attempts' WHEN a.max_attempts = 1 THEN '1 attempt' ELSE a.max_attempts || ' attempts' END AS subtitle
    FROM assignments a WHERE ${liveInSchool("a", ctx.tenantId)}`,
);
