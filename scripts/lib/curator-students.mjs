/**
 * The curator analytics scope (`curator_students`) of one school, rebuilt whole: for seeds and the
 * bench, which write users, groups and memberships straight into a school database. The same rule
 * as src/platform/schools/curator-students.ts (and the backfill of the migration that added the
 * table): a live, active curator with their individually assigned live, active students and the
 * live, active students of the live groups they curate, each pair once.
 */
import { literal } from "./sql.mjs";

/** DELETE and INSERT … SELECT statements (one SQL text, each ending with `;` and a newline). */
export function curatorStudentsSql(tenantId) {
  const t = literal(tenantId);
  const live = (alias, role) => `${alias}.tenant_id = ${t} AND ${alias}.role = '${role}' AND ${alias}.deleted_at IS NULL AND ${alias}.is_active = 1`;
  return `DELETE FROM curator_students WHERE tenant_id = ${t};
INSERT OR IGNORE INTO curator_students (tenant_id, curator_id, student_id)
  SELECT ${t}, c.id, s.id FROM users s JOIN users c ON c.id = s.individual_curator_id AND ${live("c", "curator")}
    WHERE ${live("s", "student")} AND s.individual_curator_id IS NOT NULL
  UNION
  SELECT ${t}, c.id, s.id FROM group_curators gc
    JOIN groups g ON g.id = gc.group_id AND g.tenant_id = ${t} AND g.deleted_at IS NULL
    JOIN users c ON c.id = gc.curator_id AND ${live("c", "curator")}
    JOIN group_members gm ON gm.group_id = gc.group_id AND gm.tenant_id = ${t}
    JOIN users s ON s.id = gm.user_id AND ${live("s", "student")}
    WHERE gc.tenant_id = ${t};
`;
}
