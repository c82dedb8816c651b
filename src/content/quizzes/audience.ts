import { sql } from "drizzle-orm";
import { registerOptionKind } from "../../platform/notifications/audience-service";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The campaign picker's `quiz` options (loaded with the quiz routes): every live quiz of the
 * school, subtitled with its live question count. Quizzes are the school's, not a curator's: every
 * manager sees them all.
 */
registerOptionKind(
  "quiz",
  (ctx) => sql`SELECT q.id, q.title AS label,
      (SELECT count(*) FROM quiz_questions qq WHERE ${inSchool("qq", ctx.tenantId)} AND qq.quiz_id = q.id AND qq.deleted_at IS NULL) || ' questions' AS subtitle
    FROM quizzes q WHERE ${liveInSchool("q", ctx.tenantId)}`,
);
