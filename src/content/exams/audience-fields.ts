import { sql, type SQL } from "drizzle-orm";
import { registerAudienceField, uuidValues, type AudienceRule, type CompileContext } from "../../platform/notifications/audience";
import { percentValue } from "../attempts/audience";
import { resultAttemptIdSql } from "./result";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What exam attempts add to campaign audiences (loaded with the analytics route): the fields
 * `exam_attempted` and `exam_score_pct`. Conditions are on the student `u` and on live exams of the
 * school, published or not (an exam taken back to draft keeps its results). `exam_attempted` counts
 * submitted attempts made as a student; `exam_score_pct` is the student's result as their exam view
 * shows it.
 */

const FINISHED = sql`ea.status = 'submitted' AND ea.actor_role = 'student'`;

/**
 * The student's result on an exam (`exam` an alias of `exams`) in hundredths of a percent: the
 * final percent of the attempt the student view shows as `result` (by the retake policy); NULL
 * without a submitted attempt.
 */
function examResultPctSql(tenantId: string, exam: SQL, studentId: SQL): SQL {
  return sql`(SELECT r.final_score_pct_hundredths FROM exam_attempts r
      WHERE ${inSchool("r", tenantId)} AND r.id = ${resultAttemptIdSql(tenantId, exam, studentId)})`;
}

/** The live exams of the school the rule lists, alias `x`, for an `EXISTS (SELECT 1 … AND …)`. */
const listedExams = (rule: AudienceRule, at: CompileContext) => sql`FROM exams x
    WHERE ${liveInSchool("x", at.tenantId)}
      AND x.id IN (SELECT value FROM json_each(${JSON.stringify(uuidValues(rule))}))`;

/** The student submitted an attempt of one of the listed exams. */
const attemptedAny = (rule: AudienceRule, at: CompileContext) => sql`EXISTS (SELECT 1 ${listedExams(rule, at)}
      AND EXISTS (SELECT 1 FROM exam_attempts ea WHERE ${inSchool("ea", at.tenantId)} AND ea.exam_id = x.id AND ea.user_id = u.id AND ${FINISHED}))`;

/** The student's result on one of the listed exams lies on the rule's side of the bound. */
const scoredAny = (rule: AudienceRule, at: CompileContext, comparison: "gte" | "lte") => {
  const examIds = listedExams(rule, at);
  const bound = percentValue(rule);
  const result = examResultPctSql(at.tenantId, sql`x`, sql`u.id`);
  return sql`EXISTS (SELECT 1 ${examIds} AND ${result} ${comparison === "gte" ? sql`>=` : sql`<=`} ${bound})`;
};

registerAudienceField("exam_attempted", {
  operators: {
    in: (rule, at) => attemptedAny(rule, at),
    not_in: (rule, at) => sql`NOT ${attemptedAny(rule, at)}`,
  },
});

registerAudienceField("exam_score_pct", {
  operators: {
    gte: (rule, at) => scoredAny(rule, at, "gte"),
    lte: (rule, at) => scoredAny(rule, at, "lte"),
  },
});
