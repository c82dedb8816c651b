import { sql, type SQL } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { enrollmentCountsSql } from "../../../src/content/enrollments/list-service";
import { activitySql } from "../../../src/content/enrollments/status";
import type { Actor } from "../../../src/core/http/context";
import { currentClock } from "../../../src/core/lib/clock";
import { createSchool } from "../../helpers/factories";
import { schoolD1 } from "../../helpers/databases";
import { queryPlan } from "../../helpers/plans";

/**
 * The student's latest completion in a course: the recount of every completing batch reads it to
 * store it on the enrollment (`last_completion_at`), and a student's own reads (my courses, the
 * progress scan) read it per row. SQLite answers a MAX from the end of an index whose next column
 * is the aggregated one, so without `completed_at` at the end of the (tenant, student, course)
 * index it picks the school-wide time index and walks the school's completions, newest first,
 * until one is the student's. A list's counts, which measure every enrollment of a course, read
 * the stored value and no completion at all (docs/decisions/heavy-reads-enrollments.md, "Enrollment lists").
 */
describe("the enrollment status's latest completion", () => {
  it("is one seek of the (tenant, student, course, completed_at) index", async () => {
    const school = await createSchool();
    const plan = await planOf(school.id, sql`SELECT ${activitySql(school.id, sql`e`)} AS activity FROM enrollments e WHERE e.id = ${"x"}`);
    expect(plan).toContain("SEARCH bc USING COVERING INDEX block_completions_tenant_student_course (tenant_id=? AND student_id=? AND course_id=?)");
    expect(plan).not.toContain("block_completions_tenant_completed");
  });

  it("is not read from the completions by a list's counts: they count the course's enrollments by the stored value, in ranges of an index", async () => {
    const school = await createSchool();
    const actor = { userId: "01941f29-7c00-7000-8000-00000000a001", role: "admin" } as Actor;
    const counts = enrollmentCountsSql({ tenantId: school.id, actor, clock: currentClock() }, { courseId: "01941f29-7c00-7000-8000-00000000c001" });
    const plan = await planOf(school.id, counts);
    // The whole course's counts while no course window has ended (docs/decisions/heavy-reads-enrollments.md,
    // "Enrollment counts without a status per row"): each bucket a range of the counts index, read
    // without a table row, minus the school's deleted students found through their own index.
    for (const range of ["completed_at>?", "completed_at=? AND <expr>=?", "completed_at=? AND <expr><?", "completed_at=? AND <expr>>?"]) {
      expect(plan).toContain(`SEARCH e USING COVERING INDEX enrollments_tenant_course_counts (tenant_id=? AND course_id=? AND removed_at=? AND ${range})`);
    }
    expect(plan).toContain("SEARCH u USING INDEX users_deleted (tenant_id=? AND deleted_at>?)");
    expect(plan).not.toContain("block_completions");
  });
});

async function planOf(tenantId: string, statement: SQL): Promise<string> {
  const query = new SQLiteSyncDialect().sqlToQuery(statement);
  return (await queryPlan(await schoolD1(tenantId), query.sql, query.params)).join("\n");
}
