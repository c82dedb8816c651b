import { sql } from "drizzle-orm";
import { registerOptionKind } from "../../platform/notifications/audience-service";

/**
 * The campaign picker's `quiz` options (loaded with the quiz routes): every live quiz of the
 * school, subtitled with its live question count. Quizzes are the school's, not a curator's: every
 * manager sees them all.
 */
registerOptionKind(
  "quiz",
  (ctx) => sql`SELECT q.id, q.title AS label,
      (SELECT count(*) FROM quiz_questions qq WHERE qq.tenant_id = ${ctx.tenantId} AND qq.quiz_id = q.id AND qq.deleted_at IS NULL) || ' questions' AS subtitle
    FROM quizzes q WHERE q.tenant_id = ${ctx.tenantId} AND q.deleted_at IS NULL`,
);
