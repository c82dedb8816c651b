import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import type { Db } from "../../core/db/client";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { activeMemberSql } from "./active-members";

/**
 * `curator_students`: each curator's students in scope as curator analytics counts them
 * (docs/decisions/heavy-reads.md, "Fourth pass: stored pairs"). The rule: a live, active
 * curator of the school with
 * - the live, active students whose `individual_curator_id` names them, and
 * - the live, active students who are members of a live group they curate,
 * each pair once. Every write that can change a pair (a user's role, activation, deletion, an
 * individual assignment, a group's curator, members or deletion) adds `rebuildCuratorStudents`
 * for the users it touched to its own batch: their pairs are deleted and inserted again from the
 * rule as the batch left the rows, so the table is exact whatever the write did (a refused or
 * repeated write writes the same pairs again). The cost is the touched users' pairs, never the school's.
 */

/** Whose pairs to rebuild: SELECTs of user ids on the student side, the curator side, or both. */
export interface CuratorStudentKeys {
  students?: SQL;
  curators?: SQL;
}

/** Both sides for the same users: a user whose role, activation or deletion changed. */
export const usersKeys = (ids: SQL): CuratorStudentKeys => ({ students: ids, curators: ids });

/** A SELECT of the listed ids. */
export const listedIds = (ids: readonly string[]): SQL => sql`SELECT value FROM json_each(${JSON.stringify(ids)})`;

const pairedCurator = (t: string) => activeMemberSql(t, sql`c`, "curator");
const pairedStudent = (t: string) => activeMemberSql(t, sql`s`, "student");

/**
 * The rule's pairs (curator_id, student_id) of the keyed users, at most four arms (D1 refuses
 * compound SELECTs of more). Each arm starts from the keyed side, so it reads only their rows.
 */
function rulePairs(t: string, keys: CuratorStudentKeys): SQL {
  const arms: SQL[] = [];
  if (keys.students) {
    arms.push(
      sql`SELECT c.id AS curator_id, s.id AS student_id FROM users s
        CROSS JOIN users c ON c.id = s.individual_curator_id AND ${pairedCurator(t)}
        WHERE s.id IN (${keys.students}) AND ${pairedStudent(t)}`,
      sql`SELECT gc.curator_id AS curator_id, s.id AS student_id FROM users s
        CROSS JOIN group_members gm ON gm.user_id = s.id AND ${inSchool("gm", t)}
        CROSS JOIN groups g ON g.id = gm.group_id AND ${liveInSchool("g", t)}
        CROSS JOIN group_curators gc ON gc.group_id = gm.group_id AND ${inSchool("gc", t)}
        CROSS JOIN users c ON c.id = gc.curator_id AND ${pairedCurator(t)}
        WHERE s.id IN (${keys.students}) AND ${pairedStudent(t)}`,
    );
  }
  if (keys.curators) {
    arms.push(
      sql`SELECT c.id AS curator_id, s.id AS student_id FROM users c
        CROSS JOIN users s ON ${inSchool("s", t)} AND s.individual_curator_id = c.id AND ${pairedStudent(t)}
        WHERE c.id IN (${keys.curators}) AND ${pairedCurator(t)}`,
      sql`SELECT c.id AS curator_id, s.id AS student_id FROM users c
        CROSS JOIN group_curators gc ON gc.curator_id = c.id AND ${inSchool("gc", t)}
        CROSS JOIN groups g ON g.id = gc.group_id AND ${liveInSchool("g", t)}
        CROSS JOIN group_members gm ON gm.group_id = gc.group_id AND ${inSchool("gm", t)}
        CROSS JOIN users s ON s.id = gm.user_id AND ${pairedStudent(t)}
        WHERE c.id IN (${keys.curators}) AND ${pairedCurator(t)}`,
    );
  }
  return sql.join(arms, sql` UNION `);
}

/** The DELETE and INSERT … SELECT rebuilding the keyed users' pairs; none when no side is keyed. */
export function curatorStudentsRebuildSql(tenantId: string, keys: CuratorStudentKeys): SQL[] {
  const sides = [
    keys.students ? sql`student_id IN (${keys.students})` : null,
    keys.curators ? sql`curator_id IN (${keys.curators})` : null,
  ].filter((side) => side !== null);
  if (sides.length === 0) return [];
  return [
    sql`DELETE FROM curator_students WHERE ${inSchool(tenantId)} AND (${sql.join(sides, sql` OR `)})`,
    sql`INSERT OR IGNORE INTO curator_students (tenant_id, curator_id, student_id)
      SELECT ${tenantId}, curator_id, student_id FROM (${rulePairs(tenantId, keys)})`,
  ];
}

/** `curatorStudentsRebuildSql` as statements of the caller's batch, after the writes they follow. */
export function rebuildCuratorStudents(ctx: { db: Db; tenantId: string }, keys: CuratorStudentKeys): BatchItem[] {
  return curatorStudentsRebuildSql(ctx.tenantId, keys).map((statement) => batchable(ctx, statement));
}
