import { sql } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { activitySql } from "../../../src/content/enrollments/status";
import { createSchool } from "../../helpers/factories";
import { schoolD1 } from "../../helpers/databases";

/**
 * An enrollment's status reads the student's latest completion in the course for every row of a
 * list's counts and of each export slice. SQLite answers a MAX from the end of an index whose next
 * column is the aggregated one, so without `completed_at` at the end of the (tenant, student,
 * course) index it picks the school-wide time index and walks the school's completions, newest
 * first, until one is the student's: fine with few completions, thousands of rows per enrollment in
 * a school with a history (docs/decisions/heavy-reads-rating.md, "Enrollment lists").
 */
describe("the enrollment status's latest completion", () => {
  it("is one seek of the (tenant, student, course, completed_at) index", async () => {
    const school = await createSchool();
    const query = new SQLiteSyncDialect().sqlToQuery(sql`SELECT ${activitySql(school.id, sql`e`)} AS activity FROM enrollments e WHERE e.id = ${"x"}`);
    const db = await schoolD1(school.id);
    const { results } = await db
      .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    const plan = results.map((row) => row.detail).join("\n");
    expect(plan).toContain("SEARCH bc USING COVERING INDEX block_completions_tenant_student_course (tenant_id=? AND student_id=? AND course_id=?)");
    expect(plan).not.toContain("block_completions_tenant_completed");
  });
});
