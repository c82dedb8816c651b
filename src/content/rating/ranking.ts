import { sql, type SQL } from "drizzle-orm";
import { activeStudentSql } from "../common/access";
import { inSchool } from "../../core/db/conditions";

/**
 * Ranking over the stored totals (docs/decisions/rating.md, "Rating"): every active student of the
 * population counts, a student without a `rating_totals` row with 0 points; standard competition
 * ranking (1, 1, 3): a student's rank is 1 + the number of students of the population with more
 * points.
 */

/** The student's school total in hundredths (0 without a row). */
export function schoolTotalSql(tenantId: string, studentId: string | SQL): SQL {
  return sql`COALESCE((SELECT tt.points_hundredths FROM rating_totals tt WHERE ${inSchool("tt", tenantId)} AND tt.student_id = ${studentId}), 0)`;
}

/**
 * The school rank (`GET /rating` without filters) a student other than the active students
 * counted would have with `points` hundredths: 1 + the active students of the school, other than
 * `studentId`, with more points. Students without a row count only when `points` is negative.
 */
export function schoolRankForSql(tenantId: string, studentId: string | SQL, points: SQL): SQL {
  return sql`(1 + (SELECT count(*) FROM rating_totals rk JOIN users ru ON ru.id = rk.student_id AND ${activeStudentSql(tenantId, sql`ru`)}
        WHERE ${inSchool("rk", tenantId)} AND rk.points_hundredths > (${points}) AND rk.student_id <> ${studentId})
      + CASE WHEN (${points}) < 0 THEN (SELECT count(*) FROM users ru WHERE ${activeStudentSql(tenantId, sql`ru`)} AND ru.id <> ${studentId}
          AND NOT EXISTS (SELECT 1 FROM rating_totals rk WHERE ${inSchool("rk", tenantId)} AND rk.student_id = ru.id)) ELSE 0 END)`;
}
