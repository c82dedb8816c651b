import { sql, type SQL } from "drizzle-orm";
import { batchable, runBatch, rowsOf } from "../../core/db/batch";
import { classifyStudentIds, withOtherShardsWrongTenant } from "../enrollments/student-ids";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import { isUuid } from "../../core/lib/ids";
import { dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { addSources, openEnrollments, removeSources, settleRemovedAt, sourceKey } from "../enrollments/sources";
import type { CourseSet } from "../common/course-set";
import { contentStatements } from "../common/events";
import { recomputeProgress } from "../common/progress";
import { groupsErrors as g } from "./errors";
import { MEMBER_IDS_CAP } from "./member-schemas";
import { canListMembers, groupVisibleSql } from "./scope";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { membersAddedAudit, membersRemovedAudit } from "./audit";
import { rebuildCuratorStudents } from "../../platform/schools/curator-students";

/** The group, visible to the caller (live, of the school, in their scope). */
function groupVisible(ctx: SchoolCtx, groupId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${groupId} AND ${groupVisibleSql(ctx, sql`g`)})`;
}

/** The live courses the group is enrolled in: its members hold a `group:<id>` source on each. */
function groupCourses(ctx: SchoolCtx, groupId: string): CourseSet {
  const { tenantId } = ctx;
  return {
    in: sql`SELECT cge.course_id FROM course_group_enrollments cge
      JOIN courses c ON c.id = cge.course_id AND ${liveInSchool("c", tenantId)}
      WHERE ${inSchool("cge", tenantId)} AND cge.group_id = ${groupId}`,
  };
}

/** Members as the list shows and counts them: live students of the school. */
function liveMembersSql(ctx: SchoolCtx, groupId: string): SQL {
  const { tenantId } = ctx;
  return sql`FROM group_members gm
    JOIN users u ON u.id = gm.user_id AND ${inSchool("u", tenantId)} AND u.role = 'student' AND u.deleted_at IS NULL
    WHERE ${inSchool("gm", tenantId)} AND gm.group_id = ${groupId}`;
}

interface MemberRow {
  student_id: string;
  email: string;
  first_name: string;
  last_name: string;
  is_active: number;
  joined_at: number;
}

/**
 * GET /groups/:id/members: one page of the group's live students by last name, first name and id,
 * with their total. Students never read member lists (404, as for a group they cannot see). One
 * batch: the group and the total, then the page.
 */
export async function listMembers(ctx: SchoolCtx, input: { groupId: string; query: { limit: number; offset: number } }) {
  if (!canListMembers(ctx)) throw new ApiError(g.GROUP_NOT_FOUND);
  const { groupId } = input;
  const { limit, offset } = input.query;
  const visible = groupVisible(ctx, groupId);
  const [head, page] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT ${visible} AS found, (SELECT count(*) ${liveMembersSql(ctx, groupId)}) AS total`),
    batchable(
      ctx,
      sql`SELECT u.id AS student_id, u.email, u.first_name, u.last_name, u.is_active, gm.joined_at
        ${liveMembersSql(ctx, groupId)} AND ${visible}
        ORDER BY u.last_name, u.first_name, u.id LIMIT ${limit} OFFSET ${offset}`,
    ),
  ]);
  const { found, total } = rowsOf<{ found: number; total: number }>(head)[0]!;
  if (!found) throw new ApiError(g.GROUP_NOT_FOUND);
  const members = await Promise.all(
    rowsOf<MemberRow>(page).map(async (row) => ({
      membership_id: await membershipId(groupId, row.student_id),
      student_id: row.student_id,
      email: row.email,
      first_name: row.first_name,
      last_name: row.last_name,
      is_active: row.is_active === 1,
      joined_at: iso(row.joined_at),
    })),
  );
  return { members, total, limit, offset };
}

/**
 * The membership's id: group_members is keyed by (group, student) and has no id of its own, so the
 * id is derived from that key, a name-based UUID (RFC 9562 version 5) of the student id in the
 * group id's namespace: the same for the same membership on every read, unique across groups.
 */
async function membershipId(groupId: string, studentId: string): Promise<string> {
  const namespace = Uint8Array.from(groupId.replaceAll("-", "").match(/../g)!, (byte) => parseInt(byte, 16));
  const name = new TextEncoder().encode(studentId);
  const input = new Uint8Array(namespace.length + name.length);
  input.set(namespace);
  input.set(name, namespace.length);
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-1", input)).slice(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The listed ids, checked in the contract's order (count before format, so `empty_member_list`
 * and `too_many_members` win), lower-cased and without repeats, in the order first listed.
 */
function memberIds(studentIds: readonly string[]): string[] {
  if (studentIds.length === 0) throw new ApiError(g.EMPTY_MEMBER_LIST);
  if (studentIds.length > MEMBER_IDS_CAP) throw new ApiError(g.TOO_MANY_MEMBERS);
  const bad = studentIds.findIndex((id) => !isUuid(id));
  if (bad >= 0) throw new ApiError(coreErrors.INVALID_REQUEST_BODY, { message: `student_ids[${bad}] must be a UUID.` });
  return [...new Set(studentIds.map((id) => id.toLowerCase()))];
}

type SkipReason = "already_member" | "user_not_found" | "wrong_tenant";

/**
 * POST /groups/:id/members: adds the listed live students of the school, always 200 with what was
 * added and why the rest was skipped, unless every id is a user of another school (400). New
 * members get the group's `group:<id>` source on every course the group is enrolled in, in the
 * same batch as the membership, and one `group.member_added` push each (never `course.enrolled`:
 * one push per membership change). The access it gives is announced as `enrollment.created`
 * (`membership`: the enrollments the batch opened, by student and course; no contributor of the
 * app writes for it today). Set-based: the push settings read, then one batch of nine
 * statements (the last two rebuild the members' curator analytics pairs) whatever the number of
 * students and courses. The classification runs first in the
 * atomic batch, so it describes exactly the state the writes applied to: of concurrent requests
 * adding one student, exactly one reports them added.
 */
export async function addMembers(ctx: SchoolCtx, input: { groupId: string; studentIds: readonly string[] }) {
  const { tenantId, actor } = ctx;
  const { groupId } = input;
  const json = JSON.stringify(memberIds(input.studentIds));
  const now = ctx.clock.now();
  const requested = sql`SELECT value FROM json_each(${json})`;
  // The memberships this batch wrote: they start now.
  const joined = sql`SELECT gm.user_id FROM group_members gm
    WHERE ${inSchool("gm", tenantId)} AND gm.group_id = ${groupId} AND gm.joined_at = ${now} AND gm.user_id IN (${requested})`;
  const courses = groupCourses(ctx, groupId);
  const access = { tenantId, courseId: courses, now, students: joined };
  // Read after the writes: the enrollments this batch opened (or restored) for the new members.
  const opened = sql`SELECT e.student_id, e.course_id FROM enrollments e
    WHERE ${inSchool("e", tenantId)} AND e.course_id IN (${courses.in}) AND e.student_id IN (${joined})
      AND e.removed_at IS NULL AND e.enrolled_at = ${now} AND e.enrolled_by = ${actor.userId}`;
  const announced = await contentStatements(ctx, { type: "enrollment.created", via: "membership", groupId, access: opened, now });
  const notice = await enqueue(
    ctx,
    "group.member_added",
    { token: "student", studentIds: joined },
    {
      group_name: sql`(SELECT g.name FROM groups g WHERE g.id = ${groupId} AND ${inSchool("g", tenantId)})`,
      curator_name: sql`(SELECT u.first_name || ' ' || u.last_name FROM group_curators gc
        JOIN users u ON u.id = gc.curator_id AND ${liveInSchool("u", tenantId)}
        WHERE ${inSchool("gc", tenantId)} AND gc.group_id = ${groupId} LIMIT 1)`,
      courses_count: sql`(SELECT count(*) FROM (${courses.in}))`,
    },
    { id: groupId },
    `group.member_added:${groupId}:${now}`,
  );
  const results = await runBatch(ctx, [
    batchable(ctx, sql`SELECT ${groupVisible(ctx, groupId)} AS found`),
    batchable(ctx, classification(ctx, groupId, json)),
    batchable(
      ctx,
      sql`INSERT INTO group_members (tenant_id, group_id, user_id, joined_at)
        SELECT ${tenantId}, ${groupId}, u.id, ${now} FROM users u
        WHERE ${inSchool("u", tenantId)} AND u.role = 'student' AND u.deleted_at IS NULL AND u.id IN (${requested})
          AND ${groupVisible(ctx, groupId)}
        ON CONFLICT (group_id, user_id) DO NOTHING`,
    ),
    membersAddedAudit(ctx, { groupId, requestedJson: json, joined }),
    openEnrollments(ctx, { ...access, enrolledBy: actor.userId }),
    addSources(ctx, { ...access, source: { kind: "group", groupId }, createdBy: actor.userId }),
    recomputeProgress(ctx, { tenantId, courseId: courses, studentIds: joined }),
    ...announced,
    notice,
    // The new members' pairs with the group's curators.
    ...rebuildCuratorStudents(ctx, { students: requested }),
  ]);
  if (!rowsOf<{ found: number }>(results[0])[0]!.found) throw new ApiError(g.GROUP_NOT_FOUND);
  const rows = await withOtherShardsWrongTenant(ctx, rowsOf<{ student_id: string; reason: SkipReason | null }>(results[1]));
  if (rows.every((row) => row.reason === "wrong_tenant")) throw new ApiError(g.CROSS_TENANT_STUDENT);
  await dispatchQueued(ctx);
  const added: string[] = [];
  const skipped: { student_id: string; reason: SkipReason }[] = [];
  for (const row of rows) {
    if (row.reason) skipped.push({ student_id: row.student_id, reason: row.reason });
    else added.push(row.student_id);
  }
  return { added, skipped };
}

/**
 * Why each listed id would be skipped (NULL: it joins), in request order. Not a live user of the
 * school: `wrong_tenant` when it is a live user of another school, else `user_not_found`; staff of
 * the school are no students, so `user_not_found` too.
 */
function classification(ctx: SchoolCtx, groupId: string, json: string): SQL {
  return classifyStudentIds(ctx, json, [
    sql`WHEN EXISTS (SELECT 1 FROM group_members gm WHERE ${inSchool("gm", ctx.tenantId)} AND gm.group_id = ${groupId} AND gm.user_id = u.id)
          THEN 'already_member'`,
  ]);
}

/**
 * DELETE /groups/:id/members: all or nothing: when any listed id is not a member of the group,
 * 404 `member_not_found` and nothing changes. Otherwise the memberships go, with this group's
 * sources on its courses; an enrollment closes only when no other source is left (progress stays
 * on it for a later restore). Each removed student gets `group.member_removed` (never
 * `course.unenrolled`); the access taken is announced as `enrollment.removed` (`membership`: the
 * enrollments the batch closed). The push settings read, then one batch of eight statements: the
 * state, the push (it reads the memberships, so it runs before they go), the sources, the
 * enrollments settled, the memberships, the students' curator analytics pairs (two).
 */
export async function removeMembers(ctx: SchoolCtx, input: { groupId: string; studentIds: readonly string[] }) {
  const { tenantId } = ctx;
  const { groupId } = input;
  const ids = memberIds(input.studentIds);
  const json = JSON.stringify(ids);
  const now = ctx.clock.now();
  const requested = sql`SELECT value FROM json_each(${json})`;
  const members = sql`(SELECT count(*) FROM group_members gm WHERE ${inSchool("gm", tenantId)} AND gm.group_id = ${groupId} AND gm.user_id IN (${requested}))`;
  const applies = sql`${groupVisible(ctx, groupId)} AND ${members} = ${ids.length}`;
  const courses = groupCourses(ctx, groupId);
  // Read after the enrollments are settled: those this batch closed (their last source was the group's).
  const closed = sql`SELECT e.student_id, e.course_id FROM enrollments e
    WHERE ${inSchool("e", tenantId)} AND e.course_id IN (${courses.in}) AND e.student_id IN (${requested}) AND e.removed_at = ${now}`;
  const announced = await contentStatements(ctx, { type: "enrollment.removed", via: "membership", groupId, access: closed, now, when: applies });
  const notice = await enqueue(
    ctx,
    "group.member_removed",
    { token: "student", studentIds: requested },
    { group_name: sql`(SELECT g.name FROM groups g WHERE g.id = ${groupId} AND ${inSchool("g", tenantId)})` },
    { id: groupId },
    `group.member_removed:${groupId}:${now}`,
    { when: applies },
  );
  const results = await runBatch(ctx, [
    batchable(ctx, sql`SELECT ${groupVisible(ctx, groupId)} AS found, ${members} AS members`),
    notice,
    removeSources(ctx, { tenantId, courseId: courses, keys: [sourceKey({ kind: "group", groupId })], students: requested, when: applies }),
    settleRemovedAt(ctx, { tenantId, courseId: courses, now, students: requested }),
    ...announced,
    membersRemovedAudit(ctx, { groupId, studentIds: ids, applies }),
    batchable(ctx, sql`DELETE FROM group_members WHERE ${inSchool(tenantId)} AND group_id = ${groupId} AND user_id IN (${requested}) AND ${applies}`),
    ...rebuildCuratorStudents(ctx, { students: requested }),
  ]);
  const state = rowsOf<{ found: number; members: number }>(results[0])[0]!;
  if (!state.found) throw new ApiError(g.GROUP_NOT_FOUND);
  if (state.members !== ids.length) throw new ApiError(g.MEMBER_NOT_FOUND);
  await dispatchQueued(ctx);
  return { removed: true as const };
}
