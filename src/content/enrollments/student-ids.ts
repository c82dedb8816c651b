import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";

/**
 * Why each listed id (a JSON array, in request order) cannot take part in a bulk write on the
 * school's students, one row per id with `reason` NULL for a usable one: not a live user of the
 * school → `wrong_tenant` when it is a live user of another school, else `user_not_found`; staff
 * of the school are no students → `user_not_found`; then the caller's own reasons, tried in order
 * (`WHEN … THEN '…'` clauses over the school's user `u`). Bulk enrollment and group membership
 * share it, so the two report the same reasons the same way.
 */
export function classifyStudentIds(ctx: Pick<SchoolCtx, "tenantId">, json: string, reasons: readonly SQL[]): SQL {
  const { tenantId } = ctx;
  return sql`SELECT r.value AS student_id,
      CASE
        WHEN u.id IS NULL THEN
          CASE WHEN EXISTS (SELECT 1 FROM users o WHERE o.id = r.value AND o.deleted_at IS NULL AND o.tenant_id IS NOT NULL AND o.tenant_id <> ${tenantId})
               THEN 'wrong_tenant' ELSE 'user_not_found' END
        WHEN u.role <> 'student' THEN 'user_not_found'
        ${sql.join([...reasons], sql` `)}
      END AS reason
    FROM json_each(${json}) r
      LEFT JOIN users u ON u.id = r.value AND ${liveInSchool("u", tenantId)}
    ORDER BY r.key`;
}
