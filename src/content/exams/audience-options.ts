import { sql } from "drizzle-orm";
import { registerOptionKind } from "../../platform/notifications/audience-service";

/**
 * The campaign picker's `exam` options (loaded with the exam routes): every live exam of the
 * school, subtitled with its status and live section count. Exams are the school's, not a
 * curator's: every manager sees them all.
 */
registerOptionKind(
  "exam",
  (ctx) => sql`SELECT e.id, e.title AS label,
      e.status || ' · ' || (SELECT count(*) FROM exam_sections s WHERE s.tenant_id = ${ctx.tenantId} AND s.exam_id = e.id AND s.deleted_at IS NULL) || ' sections' AS subtitle
    FROM exams e WHERE e.tenant_id = ${ctx.tenantId} AND e.deleted_at IS NULL`,
);
