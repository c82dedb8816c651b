import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import { isRestrictedCurator } from "../../platform/schools/curator-scope";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Which groups the caller sees, as a condition on a `groups` alias: admins and curators with
 * `can_manage_groups` every live group of the school; a restricted curator the groups they curate;
 * a student the groups they belong to. Anything else answers 404 `group_not_found`, as a foreign
 * group does.
 */
export function groupVisibleSql(ctx: Pick<SchoolCtx, "actor" | "tenantId">, group: SQL): SQL {
  const live = sql`${liveInSchool(group, ctx.tenantId)}`;
  if (ctx.actor.role === "student") {
    return sql`${live} AND EXISTS (SELECT 1 FROM group_members vm WHERE ${inSchool("vm", ctx.tenantId)} AND vm.group_id = ${group}.id AND vm.user_id = ${ctx.actor.userId})`;
  }
  if (isRestrictedCurator(ctx.actor)) {
    return sql`${live} AND EXISTS (SELECT 1 FROM group_curators vc WHERE ${inSchool("vc", ctx.tenantId)} AND vc.group_id = ${group}.id AND vc.curator_id = ${ctx.actor.userId})`;
  }
  return live;
}

/** Member lists are staff reading: a student sees the groups they belong to, not who else is in them. */
export function canListMembers(ctx: Pick<SchoolCtx, "actor">): boolean {
  return ctx.actor.role !== "student";
}
