import { sql, type SQL } from "drizzle-orm";
import type { RecipientToken } from "./catalog";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The recipients of an event, one shape per token of the catalog. Each resolves to a subquery of
 * user ids; the producer adds what every token shares (live, active member of the school, push on,
 * an enabled device, never the actor). Tokens that name learning content (`students`,
 * `path_students`) take the producing area's selection or name its tables in SQL, so this area
 * imports nothing from them.
 */
export type Recipients =
  | { token: "user"; userId: string }
  /** The account's devices except one installation: the one that acted or the one affected. */
  | { token: "user_other_devices"; userId: string; excludeInstallationId: string | SQL }
  | { token: "student"; studentId: string }
  /**
   * The same token for a set of students, each receiving their own row (the dedupe key gets each
   * one's id): `studentIds` is a SELECT of user ids, evaluated by the enqueue statement, so one
   * statement serves a bulk action of any size.
   */
  | { token: "student"; studentIds: SQL }
  /**
   * The students a course node applies to, as the producing area selects them (active enrollment,
   * lesson visibility, the grid that holds the window): `studentIds` is a SELECT of user ids.
   */
  | { token: "students"; studentIds: SQL }
  | { token: "curator"; curatorId: string }
  | { token: "school_admins" }
  | { token: "school_students" }
  | { token: "student_curators"; studentId: string }
  /** The curators of any of a set of students (a scan's digest): `studentIds` is a SELECT of user ids. */
  | { token: "student_curators"; studentIds: SQL }
  | { token: "student_curators_or_admins"; studentId: string }
  | { token: "group_members"; groupId: string }
  | { token: "group_curators"; groupId: string }
  /** The path's registry: students with an active enrollment in one of its live published courses. */
  | { token: "path_students"; pathId: string };

type ResolvedToken = Recipients["token"];
type Resolver<T extends ResolvedToken> = (recipients: Extract<Recipients, { token: T }>, tenantId: string) => SQL;

/** A student's curators: the individual curator and the curators of the student's live groups. */
function studentCurators(studentIds: SQL, tenantId: string): SQL {
  return sql`SELECT s.individual_curator_id FROM users s
      WHERE s.id IN (${studentIds}) AND ${inSchool("s", tenantId)} AND s.role = 'student' AND s.individual_curator_id IS NOT NULL
    UNION
    SELECT gc.curator_id FROM group_members gm
      JOIN groups g ON g.id = gm.group_id AND ${liveInSchool("g", tenantId)}
      JOIN group_curators gc ON gc.group_id = gm.group_id AND ${inSchool("gc", tenantId)}
    WHERE gm.user_id IN (${studentIds}) AND ${inSchool("gm", tenantId)}`;
}

const withRole = (ids: SQL, tenantId: string, role: string) =>
  sql`SELECT u.id FROM users u WHERE ${inSchool("u", tenantId)} AND u.role = ${role} AND u.id IN (${ids})`;

/** One resolver per token: adding a token is one entry here and one member of `Recipients`. */
const RESOLVERS: { [T in ResolvedToken]: Resolver<T> } = {
  user: (r) => sql`SELECT ${r.userId}`,
  user_other_devices: (r) => sql`SELECT ${r.userId}`,
  student: (r, tenantId) => withRole("studentIds" in r ? r.studentIds : sql`SELECT ${r.studentId}`, tenantId, "student"),
  students: (r, tenantId) => withRole(r.studentIds, tenantId, "student"),
  curator: (r, tenantId) => withRole(sql`SELECT ${r.curatorId}`, tenantId, "curator"),
  school_admins: (_r, tenantId) => sql`SELECT u.id FROM users u WHERE ${inSchool("u", tenantId)} AND u.role = 'admin'`,
  school_students: (_r, tenantId) => sql`SELECT u.id FROM users u WHERE ${inSchool("u", tenantId)} AND u.role = 'student'`,
  student_curators: (r, tenantId) =>
    withRole(studentCurators("studentIds" in r ? r.studentIds : sql`SELECT ${r.studentId}`, tenantId), tenantId, "curator"),
  student_curators_or_admins: (r, tenantId) => {
    const curators = withRole(studentCurators(sql`SELECT ${r.studentId}`, tenantId), tenantId, "curator");
    return sql`${curators}
      UNION
      SELECT a.id FROM users a WHERE ${inSchool("a", tenantId)} AND a.role = 'admin'
        AND NOT EXISTS (SELECT 1 FROM users c WHERE c.id IN (${curators}) AND c.deleted_at IS NULL AND c.is_active = 1)`;
  },
  group_members: (r, tenantId) => sql`SELECT gm.user_id FROM group_members gm
      JOIN groups g ON g.id = gm.group_id AND ${liveInSchool("g", tenantId)}
      JOIN users u ON u.id = gm.user_id AND u.role = 'student'
    WHERE gm.group_id = ${r.groupId} AND ${inSchool("gm", tenantId)}`,
  group_curators: (r, tenantId) => sql`SELECT gc.curator_id FROM group_curators gc
      JOIN groups g ON g.id = gc.group_id AND ${liveInSchool("g", tenantId)}
      JOIN users u ON u.id = gc.curator_id AND u.role = 'curator'
    WHERE gc.group_id = ${r.groupId} AND ${inSchool("gc", tenantId)}`,
  path_students: (r, tenantId) => sql`SELECT e.student_id FROM learning_path_courses l
      JOIN courses c ON c.id = l.course_id AND ${liveInSchool("c", tenantId)} AND c.status = 'published'
      JOIN enrollments e ON ${inSchool("e", tenantId)} AND e.course_id = l.course_id AND e.removed_at IS NULL
      JOIN users u ON u.id = e.student_id AND u.role = 'student'
    WHERE l.path_id = ${r.pathId} AND ${inSchool("l", tenantId)}`,
};

export function recipientIds(recipients: Recipients, tenantId: string): SQL {
  const resolve = RESOLVERS[recipients.token] as Resolver<ResolvedToken>;
  return resolve(recipients, tenantId);
}

/** Whether the catalog's token for an event is one this union can express (a programming check). */
export function resolvesToken(token: RecipientToken): token is ResolvedToken {
  return token in RESOLVERS;
}
