import { sql } from "drizzle-orm";
import { registerOptionKind } from "../../platform/notifications/audience-service";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The campaign picker's `exam` options (loaded with the exam routes): every live exam of the
 * school, subtitled with its status and live section count. Exams are the school's, not a
 * curator's: every manager sees them all.
 */
registerOptionKind(
  "exam",
  (ctx) => sql`SELECT e.id, e.title AS label,
      e.status || ' · ' || (SELECT count(*) FROM exam_sections s WHERE ${inSchool("s", ctx.tenantId)} AND s.exam_id = e.id AND s.deleted_at IS NULL) || ' sections' AS subtitle
    FROM exams e WHERE ${liveInSchool("e", ctx.tenantId)}`,
);
