import { sql, type SQL } from "drizzle-orm";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { isRestrictedCurator, restrictedScope, scopeCondition } from "../schools/curator-scope";
import { mediaAssets } from "../../db/schema";

/**
 * Which assets the caller reaches by id (GET /t/media/:id, confirm), as a condition on
 * `media_assets` added to the lookup itself, so it costs no round trip. Students: their own
 * uploads; content reaches them as signed links inside what they may read. Restricted curators:
 * their own uploads, files not uploaded by a student (school content, also when the uploader's
 * account is gone) and their own students' files. Admins and other curators: the whole school.
 * An asset outside answers like a missing one (404 `media_not_found`).
 */
export function reachableAsset(ctx: Pick<SchoolCtx, "actor" | "tenantId">): SQL | undefined {
  const uploader = mediaAssets.uploadedByUserId;
  if (ctx.actor.role === "student") return sql`${uploader} = ${ctx.actor.userId}`;
  if (!isRestrictedCurator(ctx.actor)) return undefined;
  const byStudent = sql`EXISTS (SELECT 1 FROM users mu WHERE mu.id = ${uploader} AND ${inSchool("mu", ctx.tenantId)} AND mu.role = 'student')`;
  return sql`(${uploader} = ${ctx.actor.userId} OR NOT ${byStudent} OR ${scopeCondition(uploader, restrictedScope(ctx))})`;
}
