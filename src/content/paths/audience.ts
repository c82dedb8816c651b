import { sql } from "drizzle-orm";
import { registerAudienceField, uuidValues, type AudienceRule, type CompileContext } from "../../platform/notifications/audience";
import { registerOptionKind } from "../../platform/notifications/audience-service";
import { inPathRegistrySql } from "./registry";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What learning paths add to campaign audiences (loaded with the paths routes): the field
 * `path_enrolled` (the student is in the registry of one of the listed live paths) and the
 * picker's `path` options. Conditions are on the student `u`.
 */

const inAnyRegistry = (rule: AudienceRule, at: CompileContext) => sql`EXISTS (SELECT 1 FROM learning_paths ap
    WHERE ${liveInSchool("ap", at.tenantId)}
      AND ap.id IN (SELECT value FROM json_each(${JSON.stringify(uuidValues(rule))}))
      AND ${inPathRegistrySql(at.tenantId, sql`ap.id`, sql`u.id`)})`;

registerAudienceField("path_enrolled", {
  operators: {
    in: (rule, at) => inAnyRegistry(rule, at),
    not_in: (rule, at) => sql`NOT ${inAnyRegistry(rule, at)}`,
  },
});

// Paths are the school's, not a curator's: every manager sees them all.
registerOptionKind(
  "path",
  (ctx) => sql`SELECT p.id, p.title AS label,
      p.status || ' · ' || (SELECT count(*) FROM learning_path_courses l JOIN courses c ON c.id = l.course_id AND ${liveInSchool("c", ctx.tenantId)}
        WHERE ${inSchool("l", ctx.tenantId)} AND l.path_id = p.id) || ' courses' AS subtitle
    FROM learning_paths p WHERE ${liveInSchool("p", ctx.tenantId)}`,
);
