import { sql, type AnyColumn, type Placeholder, type SQL } from "drizzle-orm";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { Actor, SchoolCtx } from "../../core/http/context";

// Below notifications and media, which need it too (docs/decisions/platform-layers.md, "The school directory holds what every area reaches").

/**
 * Whose students a restricted curator sees; null when the caller is not restricted. A statement
 * prepared once takes placeholders, bound to the school and the curator when it runs.
 */
interface CuratorScope {
  tenantId: string | Placeholder;
  curatorId: string | Placeholder;
}

/** The caller's scope in the school the request acts on; null unless a restricted curator calls. */
export function restrictedScope(ctx: Pick<SchoolCtx, "actor" | "tenantId">): CuratorScope | null {
  if (!isRestrictedCurator(ctx.actor)) return null;
  return { tenantId: ctx.tenantId, curatorId: ctx.actor.userId };
}

/**
 * The ids of a curator's own students (spec, convention 7): live students of the school assigned
 * to the curator individually, plus members of live groups the curator is assigned to. UNION
 * collapses a student reached both ways (or through two groups), so callers never see duplicates.
 */
function curatorStudentIds(scope: CuratorScope): SQL {
  return sql`SELECT s.id FROM users s
    WHERE ${inSchool("s", scope.tenantId)} AND s.individual_curator_id = ${scope.curatorId}
      AND s.role = 'student' AND s.deleted_at IS NULL
    UNION
    SELECT gm.user_id FROM group_members gm
      JOIN group_curators gc ON gc.group_id = gm.group_id AND gc.curator_id = ${scope.curatorId} AND ${inSchool("gc", scope.tenantId)}
      JOIN groups g ON g.id = gm.group_id AND ${liveInSchool("g", scope.tenantId)}
      JOIN users s ON s.id = gm.user_id AND ${inSchool("s", scope.tenantId)} AND s.role = 'student' AND s.deleted_at IS NULL
    WHERE ${inSchool("gm", scope.tenantId)}`;
}

/**
 * Condition for a WHERE clause: the user id in `column` is one of the curator's students. A
 * membership test (never a join), so rows of the outer query are not multiplied.
 */
function isCuratorStudent(column: AnyColumn | SQL, scope: CuratorScope): SQL {
  return sql`${column} IN (${curatorStudentIds(scope)})`;
}

/** `isCuratorStudent` when the caller is restricted, else no condition (undefined drops out of `and`). */
export function scopeCondition(column: AnyColumn | SQL, scope: CuratorScope | null): SQL | undefined {
  return scope ? isCuratorStudent(column, scope) : undefined;
}

/** A curator without manage_groups sees only their own students (convention 7). */
export function isRestrictedCurator(actor: Actor): boolean {
  return actor.role === "curator" && actor.permissions?.can_manage_groups !== true;
}
