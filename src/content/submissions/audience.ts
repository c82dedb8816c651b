import { sql } from "drizzle-orm";
import { registerAudienceField, uuidValues, type AudienceRule, type CompileContext } from "../../platform/notifications/audience";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What submissions add to campaign audiences (loaded with the submission routes): the field
 * `assignment_submitted` (`in` / `not_in` assignment ids). Conditions are on the student `u`: a
 * submission of a listed live assignment of the school beyond `draft` (submitted, accepted or
 * rejected), as the assignments' progress counts it.
 */

const submittedAny = (rule: AudienceRule, at: CompileContext) => sql`EXISTS (SELECT 1 FROM assignments aa
    WHERE ${liveInSchool("aa", at.tenantId)}
      AND aa.id IN (SELECT value FROM json_each(${JSON.stringify(uuidValues(rule))}))
      AND EXISTS (SELECT 1 FROM submissions asb WHERE ${inSchool("asb", at.tenantId)} AND asb.assignment_id = aa.id AND asb.student_id = u.id
        AND asb.status <> 'draft'))`;

registerAudienceField("assignment_submitted", {
  operators: {
    in: (rule, at) => submittedAny(rule, at),
    not_in: (rule, at) => sql`NOT ${submittedAny(rule, at)}`,
  },
});
