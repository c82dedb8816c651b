import { sql, type SQL } from "drizzle-orm";
import { inSchool } from "../../core/db/conditions";

/**
 * `u` (an alias of `users`) is a live, active member of the school in `role`: the one rule of who
 * rankings and analytics count as a student, and which curators and students the curator pairs
 * join (src/platform/schools/curator-students.ts).
 */
export function activeMemberSql(tenantId: string | SQL, u: SQL, role: "student" | "curator"): SQL {
  return sql`${inSchool(u, tenantId)} AND ${u}.role = ${sql.raw(`'${role}'`)} AND ${u}.deleted_at IS NULL AND ${u}.is_active = 1`;
}
