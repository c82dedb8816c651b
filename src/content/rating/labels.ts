import { sql, type SQL } from "drizzle-orm";
import type { RatingSourceType } from "../../db/schema";
import { inSchool } from "../../core/db/conditions";

export type RatedObjectType = Exclude<RatingSourceType, "manual">;

/** The table of each kind of object a rule awards for (overrides name one, events point at one). */
export const OBJECT_TABLES: Readonly<Record<RatedObjectType, string>> = {
  lesson: "lessons",
  module: "course_modules",
  course: "courses",
  quiz: "quizzes",
  assignment: "assignments",
  exam: "exams",
};

/** The title of a point event's object (SQL) by its source type, deleted objects included (the events outlive them); NULL for adjustments. */
export function targetLabelSql(tenantId: string, sourceType: SQL, targetId: SQL): SQL {
  const title = (table: string) => sql`(SELECT lt.title FROM ${sql.raw(table)} lt WHERE ${inSchool("lt", tenantId)} AND lt.id = ${targetId})`;
  const cases = Object.entries(OBJECT_TABLES).map(([type, table]) => sql` WHEN ${sql.raw(`'${type}'`)} THEN ${title(table)}`);
  return sql`(CASE ${sourceType}${sql.join(cases, sql``)} END)`;
}
