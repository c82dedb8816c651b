import { sql, type SQL } from "drizzle-orm";

/** The title of a point event's object (SQL) by its source type, deleted objects included (the events outlive them); NULL for adjustments. */
export function targetLabelSql(tenantId: string, sourceType: SQL, targetId: SQL): SQL {
  const title = (table: string) => sql`(SELECT lt.title FROM ${sql.raw(table)} lt WHERE lt.tenant_id = ${tenantId} AND lt.id = ${targetId})`;
  return sql`(CASE ${sourceType} WHEN 'lesson' THEN ${title("lessons")} WHEN 'module' THEN ${title("course_modules")} WHEN 'course' THEN ${title("courses")}
      WHEN 'quiz' THEN ${title("quizzes")} WHEN 'assignment' THEN ${title("assignments")} WHEN 'exam' THEN ${title("exams")} END)`;
}
