import { sql, type SQL } from "drizzle-orm";
import { registerBlockRef } from "../courses/references";
import { quizzesErrors } from "../quizzes/errors";
import { registerQuizDeleteGuard, registerQuizExamLinks } from "../quizzes/exam-links";
import { isStaff } from "../common/access";
import { examsForEmbed } from "./exam-read";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What exams tell quizzes and the course tree (loaded with the exam routes). A quiz is used by an
 * exam through a live section of a live exam: published through it when that exam is published
 * (a student still reads its questions only through `go` in their exam attempt), held by it
 * against deletion whatever the exam's status. An `exam_ref` block names an existing exam when the
 * exam is live in the school (any status) and embeds it as GET /exams/:id shows it to the caller
 * (nothing for a student while it is a draft).
 */

/** `FROM … WHERE …` of the live sections of live exams using the quiz: aliases `ls` (section), `le` (exam). */
function sectionsUsingSql(tenantId: string, quizId: SQL, examCondition: SQL = sql``): SQL {
  return sql`FROM exam_sections ls
      JOIN exams le ON le.id = ls.exam_id AND ${liveInSchool("le", tenantId)} ${examCondition}
    WHERE ${inSchool("ls", tenantId)} AND ls.quiz_id = ${quizId} AND ls.deleted_at IS NULL`;
}

const publishedSql = (tenantId: string, quizId: SQL) => sql`EXISTS (SELECT 1 ${sectionsUsingSql(tenantId, quizId, sql`AND le.status = 'published'`)})`;

registerQuizExamLinks({
  published: publishedSql,
  refsJson: (ctx, quizId) => {
    const onlyPublished = isStaff(ctx.actor) ? sql`` : sql`AND le.status = 'published'`;
    return sql`SELECT json_group_array(json_object('exam_id', x.exam_id, 'exam_title', x.exam_title, 'exam_status', x.exam_status,
        'section_id', x.section_id, 'section_title', x.section_title))
      FROM (SELECT le.id AS exam_id, le.title AS exam_title, le.status AS exam_status, ls.id AS section_id, ls.title AS section_title
            ${sectionsUsingSql(ctx.tenantId, quizId, onlyPublished)}
            ORDER BY le.title, le.id, ls.position, ls.id) x`;
  },
});

registerQuizDeleteGuard({
  failure: quizzesErrors.QUIZ_REFERENCED_BY_EXAM,
  holds: (tenantId, quizId) => sql`EXISTS (SELECT 1 ${sectionsUsingSql(tenantId, quizId)})`,
});

registerBlockRef("exam_ref", {
  exists: (tenantId, id) => sql`EXISTS (SELECT 1 FROM exams rx WHERE rx.id = ${id} AND ${liveInSchool("rx", tenantId)})`,
  embed: examsForEmbed,
});
