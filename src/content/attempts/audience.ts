import { sql, type SQL } from "drizzle-orm";
import { parseHundredths } from "../../core/db/decimal";
import { ApiError } from "../../core/http/errors";
import { registerAudienceField, uuidValues, type AudienceRule, type CompileContext } from "../../platform/notifications/audience";
import { notificationsErrors } from "../../platform/notifications/errors";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What quiz attempts add to campaign audiences (loaded with the grading routes): the fields
 * `quiz_attempted` and `quiz_score_pct`. Conditions are on the student `u`; only the student's own
 * attempts count (actor_role `student`, outside exam sections, which belong to the exam), and only
 * on live quizzes of the school.
 */

const FINISHED = sql`qa.status = 'submitted' AND qa.exam_attempt_id IS NULL AND qa.actor_role = 'student'`;

/**
 * The student's result on a quiz (`quiz` an alias of `quizzes`) by its retake policy, in hundredths
 * of a percent: `best` the highest score of the settled attempts, `last` the score of the latest
 * settled one. An attempt waiting for a grade has no result yet; NULL when no attempt has one.
 */
export function quizResultPctSql(tenantId: string, quiz: SQL, studentId: SQL): SQL {
  const settled = sql`${inSchool("qa", tenantId)} AND qa.quiz_id = ${quiz}.id AND qa.user_id = ${studentId} AND ${FINISHED} AND qa.pending_review = 0`;
  return sql`(CASE ${quiz}.retake_policy
      WHEN 'last' THEN (SELECT qa.score_pct_hundredths FROM quiz_attempts qa WHERE ${settled} ORDER BY qa.submitted_at DESC, qa.id DESC LIMIT 1)
      ELSE (SELECT max(qa.score_pct_hundredths) FROM quiz_attempts qa WHERE ${settled}) END)`;
}

/** The live quizzes of the school the rule lists, alias `q`, for an `EXISTS (SELECT 1 … AND …)`. */
const listedQuizzes = (rule: AudienceRule, at: CompileContext) => sql`FROM quizzes q
    WHERE ${liveInSchool("q", at.tenantId)}
      AND q.id IN (SELECT value FROM json_each(${JSON.stringify(uuidValues(rule))}))`;

/** The student finished an attempt of one of the listed quizzes. */
const attemptedAny = (rule: AudienceRule, at: CompileContext) => sql`EXISTS (SELECT 1 ${listedQuizzes(rule, at)}
      AND EXISTS (SELECT 1 FROM quiz_attempts qa WHERE ${inSchool("qa", at.tenantId)} AND qa.quiz_id = q.id AND qa.user_id = u.id AND ${FINISHED}))`;

/** `value`: a percentage 0..100 with at most two decimals (number or string), as hundredths. */
export function percentValue(rule: AudienceRule): number {
  const hundredths = parseHundredths(rule.value);
  if (hundredths === null || hundredths < 0 || hundredths > 10_000) {
    throw new ApiError(notificationsErrors.INVALID_AUDIENCE, { message: `${rule.field} ${rule.operator} takes "value": a percentage from 0 to 100.` });
  }
  return hundredths;
}

/** The student's result on one of the listed quizzes lies on the rule's side of the bound. */
const scoredAny = (rule: AudienceRule, at: CompileContext, comparison: "gte" | "lte") => {
  const quizIds = listedQuizzes(rule, at);
  const bound = percentValue(rule);
  const result = quizResultPctSql(at.tenantId, sql`q`, sql`u.id`);
  return sql`EXISTS (SELECT 1 ${quizIds} AND ${result} ${comparison === "gte" ? sql`>=` : sql`<=`} ${bound})`;
};

registerAudienceField("quiz_attempted", {
  operators: {
    in: (rule, at) => attemptedAny(rule, at),
    not_in: (rule, at) => sql`NOT ${attemptedAny(rule, at)}`,
  },
});

registerAudienceField("quiz_score_pct", {
  operators: {
    gte: (rule, at) => scoredAny(rule, at, "gte"),
    lte: (rule, at) => scoredAny(rule, at, "lte"),
  },
});
