import { sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { containsText, inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { pageOffset } from "../../core/http/pagination";
import { isUuid } from "../../core/lib/ids";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { isStaff } from "../common/access";
import { quizOpenLessonsSql } from "./access";
import { quizzesErrors } from "./errors";
import { presentQuizListItem } from "./present";
import { quizListColumnsSql, quizPublishedSql, quizVisibleSql, type QuizListRow } from "./quiz-read";
import type { ListQuizzesQuery } from "./schemas";

/**
 * The quiz (alias `q`) appears in the course: staff, through any live lesson of it that
 * references the quiz; a student, through a lesson of it that gives them the quiz.
 */
function inCourseSql(ctx: SchoolCtx, courseId: string): SQL {
  const t = ctx.tenantId;
  if (!isStaff(ctx.actor)) return sql`EXISTS (SELECT 1 FROM (${quizOpenLessonsSql(t, sql`q.id`, ctx.actor.userId, ctx.clock.now())}) cl WHERE cl.course_id = ${courseId})`;
  return sql`EXISTS (SELECT 1 FROM blocks cb
      JOIN lessons cl ON cl.id = cb.lesson_id AND ${liveInSchool("cl", t)}
      JOIN course_modules cm ON cm.id = cb.module_id AND ${liveInSchool("cm", t)}
      JOIN courses cc ON cc.id = cb.course_id AND ${liveInSchool("cc", t)}
    WHERE ${inSchool("cb", t)} AND cb.course_id = ${courseId} AND cb.ref_id = q.id AND cb.type = 'quiz_ref' AND cb.deleted_at IS NULL)`;
}

/**
 * Whose attempts the row aggregates count: staff, everyone's (a restricted curator, their own
 * students'); a student, their own, so a student never learns how classmates did.
 */
function attemptScopeSql(ctx: SchoolCtx): SQL {
  if (!isStaff(ctx.actor)) return sql`qa.user_id = ${ctx.actor.userId}`;
  return scopeCondition(sql`qa.user_id`, restrictedScope(ctx)) ?? sql`1`;
}

/**
 * GET /t/quizzes: one batch (one round trip) for the total and the page, newest first, each row
 * with its question count and attempt aggregates from one scan of the quiz's attempts. Staff list
 * every live quiz of the school; a student only the quizzes they reach.
 */
export async function listQuizzes(ctx: SchoolCtx, input: { query: z.infer<typeof ListQuizzesQuery> }) {
  const { query } = input;
  if (query.course_id !== undefined && !isUuid(query.course_id)) throw new ApiError(quizzesErrors.INVALID_COURSE_ID);
  const t = ctx.tenantId;
  const conditions = [
    quizVisibleSql(ctx),
    query.q ? containsText(sql`q.title`, query.q) : undefined,
    query.status === "published" ? quizPublishedSql(t, sql`q.id`) : query.status === "draft" ? sql`NOT ${quizPublishedSql(t, sql`q.id`)}` : undefined,
    query.course_id !== undefined ? inCourseSql(ctx, query.course_id.toLowerCase()) : undefined,
  ].filter((condition): condition is SQL => condition !== undefined);
  const where = sql.join(conditions, sql` AND `);
  const [count, page] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT count(*) AS total FROM quizzes q WHERE ${where}`),
    batchable(
      ctx,
      sql`SELECT ${quizListColumnsSql(ctx, attemptScopeSql(ctx))} FROM quizzes q WHERE ${where}
        ORDER BY q.created_at DESC, q.id DESC LIMIT ${query.limit} OFFSET ${pageOffset(query.page, query.limit)}`,
    ),
  ]);
  return {
    quizzes: rowsOf<QuizListRow>(page).map((row) => presentQuizListItem(ctx, row)),
    total: rowsOf<{ total: number }>(count)[0]?.total ?? 0,
    page: query.page,
    limit: query.limit,
  };
}
