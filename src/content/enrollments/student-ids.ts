import { sql, type SQL } from "drizzle-orm";
import { liveInSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { shardDb, shardNames } from "../../core/db/client";

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

/**
 * The same-shard SQL above sees only the schools of this school's shard: an id that it calls
 * `user_not_found` may be a live member of a school on another shard, which the contract reports as
 * `wrong_tenant`. Asked of the other shards at once (one round trip of wall time), and only when
 * some id was not found.
 */
export async function withOtherShardsWrongTenant<R extends { student_id: string; reason: string | null }>(
  ctx: Pick<SchoolCtx<SchoolActor>, "env" | "tenant">,
  rows: R[],
): Promise<R[]> {
  const missing = rows.filter((row) => row.reason === "user_not_found").map((row) => row.student_id);
  if (missing.length === 0) return rows;
  const others = shardNames(ctx.env).filter((shard) => shard !== ctx.tenant.shard);
  const found = await Promise.all(
    others.map((shard) =>
      shardDb(ctx.env, shard).all<{ id: string }>(
        sql`SELECT o.id FROM users o WHERE o.id IN (SELECT value FROM json_each(${JSON.stringify(missing)})) AND o.deleted_at IS NULL AND o.tenant_id IS NOT NULL`,
      ),
    ),
  );
  const elsewhere = new Set(found.flat().map((row) => row.id));
  return rows.map((row) => (row.reason === "user_not_found" && elsewhere.has(row.student_id) ? { ...row, reason: "wrong_tenant" } : row));
}
