import { sql } from "drizzle-orm";
import { registerBlockRef, registerQuizQuestionCount } from "../courses/references";
import { quizzesForEmbed } from "./quiz-service";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What quizzes tell the course tree (loaded with the quiz routes): a `quiz_ref` block names an
 * existing quiz when the quiz is live in the school (a deleted quiz no longer exists for blocks
 * and is embedded nowhere); full blocks embed the quiz as GET /quizzes/:id shows it to the caller
 * (the student's safe view, with fresh matching tokens); the module index counts its live
 * questions.
 */

registerBlockRef("quiz_ref", {
  exists: (tenantId, id) => sql`EXISTS (SELECT 1 FROM quizzes rq WHERE rq.id = ${id} AND ${liveInSchool("rq", tenantId)})`,
  embed: quizzesForEmbed,
});

registerQuizQuestionCount(
  (tenantId, quizId) => sql`(SELECT (SELECT count(*) FROM quiz_questions cq WHERE ${inSchool("cq", tenantId)} AND cq.quiz_id = cqz.id AND cq.deleted_at IS NULL)
    FROM quizzes cqz WHERE cqz.id = ${quizId} AND ${liveInSchool("cqz", tenantId)})`,
);
