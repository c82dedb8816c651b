import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import { curatorStudentsRebuildSql, listedIds } from "../../src/platform/schools/curator-students";
import { db } from "./databases";

/**
 * Users, groups and memberships written straight to D1 by the helpers skip the writes that keep
 * `curator_students` (docs/decisions/heavy-reads.md, "Fourth pass: stored pairs"); this
 * rebuilds the listed users' pairs (either side) afterwards, as those writes' batches would have.
 */
export async function rebuildCuratorStudentsOf(tenantId: string, userIds: readonly string[]): Promise<void> {
  const ids = listedIds(userIds);
  for (const statement of curatorStudentsRebuildSql(tenantId, { students: ids, curators: ids })) await db().run(statement);
}

/** The school of a user, for helpers that are given only the user. */
export async function tenantOfUser(userId: string): Promise<string> {
  const [row] = await db().select({ tenantId: schema.users.tenantId }).from(schema.users).where(eq(schema.users.id, userId));
  return row!.tenantId!;
}
