import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { coursesErrors } from "../courses/errors";
import { groupsErrors } from "../groups/errors";
import { ratingErrors as e } from "./errors";
import { liveModuleSql, visibleGroupSql } from "./leaderboard-service";
import { optionalUuid, populationSql } from "./scope";
import { inSchool, liveInSchool } from "../../core/db/conditions";

interface FilterOption {
  id: string;
  title: string;
}

/**
 * The objects the leaderboard can be narrowed to (spec, GET /rating/filter-options): live lessons,
 * quizzes, assignments and exams with at least one point event of a student the caller sees. With
 * a module, lessons are the module's live lessons and quizzes and assignments those its live
 * lessons' live blocks reference; exams stay standalone. One D1 batch with the checks.
 */
export async function getFilterOptions(ctx: SchoolCtx, query: { group_id?: string; module_id?: string }) {
  const groupId = optionalUuid(query.group_id, e.INVALID_GROUP_ID);
  const moduleId = optionalUuid(query.module_id, e.INVALID_MODULE_ID);
  const { tenantId } = ctx;
  const member = populationSql(ctx, groupId);
  const options = (table: string, sourceType: string, inModule: SQL | null) =>
    batchable(
      ctx,
      sql`SELECT o.id, o.title FROM ${sql.raw(table)} o
        WHERE ${liveInSchool("o", tenantId)} ${inModule ? sql`AND o.id IN (${inModule})` : sql``}
          AND EXISTS (SELECT 1 FROM point_events pe JOIN users u ON u.id = pe.student_id AND ${member}
            WHERE ${inSchool("pe", tenantId)} AND pe.target_id = o.id AND pe.source_type = ${sourceType})
        ORDER BY o.title COLLATE NOCASE, o.id`,
    );
  const lessons = moduleId ? sql`SELECT ml.id FROM lessons ml WHERE ${inSchool("ml", tenantId)} AND ml.module_id = ${moduleId} AND ml.deleted_at IS NULL` : null;
  const referenced = (type: string) =>
    lessons
      ? sql`SELECT mb.ref_id FROM blocks mb WHERE ${inSchool("mb", tenantId)} AND mb.lesson_id IN (${lessons}) AND mb.type = ${type} AND mb.deleted_at IS NULL AND mb.ref_id IS NOT NULL`
      : null;
  const checks = [...(groupId ? [batchable(ctx, visibleGroupSql(ctx, groupId))] : []), ...(moduleId ? [batchable(ctx, liveModuleSql(ctx, moduleId))] : [])];
  const results = await runBatch(ctx, [
    ...checks,
    options("lessons", "lesson", lessons),
    options("quizzes", "quiz", referenced("quiz_ref")),
    options("assignments", "assignment", referenced("assignment_ref")),
    options("exams", "exam", null),
  ]);
  let index = 0;
  if (groupId && rowsOf(results[index++]).length === 0) throw new ApiError(groupsErrors.GROUP_NOT_FOUND);
  if (moduleId && rowsOf(results[index++]).length === 0) throw new ApiError(coursesErrors.MODULE_NOT_FOUND);
  const [lessonRows, quizRows, assignmentRows, examRows] = results.slice(index).map((result) => rowsOf<FilterOption>(result));
  return { lessons: lessonRows!, quizzes: quizRows!, assignments: assignmentRows!, exams: examRows! };
}
