import { sql, type SQL } from "drizzle-orm";
import { batchable, insertWhere, runBatch, rowsOf } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { isUuid, uuidv7 } from "../../core/lib/ids";
import { courseGroupEnrollments } from "../../db/schema";
import { dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { bulkEnroll, courseOpenSql } from "../enrollments/enroll-service";
import { addSources, openEnrollments, removeSources, settleRemovedAt } from "../enrollments/sources";
import { courseVisibleSql } from "../common/access";
import { contentStatements } from "../common/events";
import { recomputeProgress } from "../common/progress";
import { GROUP_ENROLLMENTS_DEFAULT_LIMIT, GROUP_ENROLLMENTS_MAX_LIMIT } from "./course-group-schemas";
import { groupSourceKey, heldSql, linkCountsSql, linkRowsSql, presentLink, type LinkRow } from "./course-group-read";
import { groupsErrors as e } from "./errors";
import { groupVisibleSql } from "./scope";
import { inSchool } from "../../core/db/conditions";
import { groupUnenrolledAudit } from "./audit";

type Lenient = string | string[] | undefined;

/** A whole number in range from a query value, or the fallback for anything else (the contract never refuses these). */
function lenientInt(raw: Lenient, min: number, max: number, fallback: number): number {
  const text = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? "";
  if (!/^\d{1,9}$/.test(text)) return fallback;
  const value = Number(text);
  return value >= min && value <= max ? value : fallback;
}

/**
 * GET /courses/:id/group-enrollments (manage_groups): a page of the groups enrolled in the course
 * (a draft included: a course can be unpublished after its groups were enrolled), newest link
 * first, with their access counts and the course's totals. One round trip: the course, the page
 * and the counts in one batch.
 */
export async function listCourseGroups(ctx: SchoolCtx, input: { courseId: string; query: { q?: string; page?: Lenient; limit?: Lenient } }) {
  const { tenantId } = ctx;
  const { courseId, query } = input;
  const page = lenientInt(query.page, 1, 1_000_000_000, 1);
  const limit = lenientInt(query.limit, 1, GROUP_ENROLLMENTS_MAX_LIMIT, GROUP_ENROLLMENTS_DEFAULT_LIMIT);
  const results = await runBatch(ctx, [
    batchable(ctx, sql`SELECT c.id FROM courses c WHERE c.id = ${courseId} AND ${courseVisibleSql(ctx, sql`c`)}`),
    batchable(ctx, linkRowsSql(tenantId, courseId, { q: query.q, page: { limit, offset: (page - 1) * limit } })),
    batchable(ctx, linkCountsSql(tenantId, courseId, query.q)),
  ]);
  if (rowsOf(results[0]).length === 0) throw new ApiError(e.COURSE_NOT_FOUND);
  const counts = rowsOf<{ total: number; groups: number; students: number }>(results[2])[0]!;
  return {
    group_enrollments: await Promise.all(rowsOf<LinkRow>(results[1]).map((row) => presentLink(ctx, row))),
    counts: { groups: counts.groups, students: counts.students },
    total: counts.total,
    page,
    limit,
  };
}

/** The group's members who are live students of the school (alias-free: a SELECT of user ids). */
function liveMembersSql(tenantId: string, groupId: string, extra: SQL = sql``): SQL {
  return sql`SELECT gm.user_id FROM group_members gm
      JOIN users mu ON mu.id = gm.user_id AND ${inSchool("mu", tenantId)} AND mu.role = 'student' AND mu.deleted_at IS NULL
    WHERE ${inSchool("gm", tenantId)} AND gm.group_id = ${groupId} ${extra}`;
}

/**
 * POST /courses/:id/group-enrollments (manage_groups): links the group to a published course and
 * gives every member (a live student) the `group:<id>` source, opening (or restoring, progress
 * kept) the enrollments of those without access. Idempotent: a repeat finds the link and changes
 * nothing but what is missing. One batch, in this order because the pushes must read the state
 * before the writes: the state before, `course.enrolled` to the members without access (#31),
 * `group.course_enrolled` to the group's curators when the link is new (#55), the link, the
 * enrollments, their sources, the new ones' progress, and the link's row read back. The batch is
 * one transaction, so what the first statement reads is exactly what the writes apply to.
 */
export async function enrollGroup(ctx: SchoolCtx, input: { courseId: string; groupId: string }) {
  const { tenantId, actor } = ctx;
  const { courseId, groupId } = input;
  const now = ctx.clock.now();
  const linkId = uuidv7(now);
  const courseOpen = courseOpenSql(tenantId, courseId);
  const groupLive = sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${groupId} AND ${groupVisibleSql(ctx, sql`g`)})`;
  const open = sql`${courseOpen} AND ${groupLive}`;
  const linked = sql`EXISTS (SELECT 1 FROM course_group_enrollments l WHERE ${inSchool("l", tenantId)} AND l.course_id = ${courseId} AND l.group_id = ${groupId})`;
  const members = liveMembersSql(tenantId, groupId);
  const withoutAccess = liveMembersSql(
    tenantId,
    groupId,
    sql`AND NOT EXISTS (SELECT 1 FROM enrollments ae WHERE ${inSchool("ae", tenantId)} AND ae.course_id = ${courseId} AND ae.student_id = gm.user_id AND ae.removed_at IS NULL)`,
  );
  const newAccessCount = sql`(SELECT count(*) FROM (${withoutAccess}))`;
  // The enrollments this batch opened: their access starts now and the caller gave it.
  const opened = sql`SELECT e.student_id FROM enrollments e
    WHERE ${inSchool("e", tenantId)} AND e.course_id = ${courseId} AND e.removed_at IS NULL
      AND e.enrolled_at = ${now} AND e.enrolled_by = ${actor.userId} AND e.student_id IN (${members})`;
  const range = { tenantId, courseId, now };
  const source = { kind: "group", groupId } as const;
  const [enrolled, groupPush] = await Promise.all([
    contentStatements(ctx, { type: "enrollment.created", courseId, students: withoutAccess, via: "group", groupId, now, when: open }),
    enqueue(
      ctx,
      "group.course_enrolled",
      { token: "group_curators", groupId },
      {
        group_name: sql`(SELECT g.name FROM groups g WHERE g.id = ${groupId} AND ${inSchool("g", tenantId)})`,
        course_title: sql`(SELECT c.title FROM courses c WHERE c.id = ${courseId} AND ${inSchool("c", tenantId)})`,
        enrolled_count: newAccessCount,
      },
      { id: groupId },
      `group.course_enrolled:${groupId}:${linkId}`,
      { when: sql`${open} AND NOT ${linked}` },
    ),
  ]);
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT ${courseOpen} AS course_open, ${groupLive} AS group_live, ${linked} AS linked,
        ${newAccessCount} AS new_access, (SELECT count(*) FROM (${members})) AS members`,
    ),
    ...enrolled,
    groupPush,
    insertWhere(ctx, courseGroupEnrollments, { id: linkId, tenantId, courseId, groupId, enrolledAt: now, enrolledBy: actor.userId }, sql`${open} AND NOT ${linked}`),
    openEnrollments(ctx, { ...range, students: members, enrolledBy: actor.userId, when: open }),
    addSources(ctx, { ...range, students: members, source, createdBy: actor.userId, when: open }),
    recomputeProgress(ctx, { tenantId, courseId, studentIds: opened }),
    batchable(ctx, linkRowsSql(tenantId, courseId, { groupId })),
  ]);
  const before = rowsOf<{ course_open: number; group_live: number; linked: number; new_access: number; members: number }>(results[0])[0]!;
  if (!before.course_open) throw new ApiError(e.COURSE_NOT_FOUND);
  if (!before.group_live) throw new ApiError(e.GROUP_NOT_FOUND);
  const row = rowsOf<LinkRow>(results[results.length - 1])[0];
  if (!row) throw new Error("an open course and a live group left no link");
  await dispatchQueued(ctx);
  return {
    created: !before.linked,
    data: {
      group_enrollment: await presentLink(ctx, row),
      enrolled_count: before.new_access,
      already_enrolled_count: before.members - before.new_access,
    },
  };
}

/**
 * DELETE /courses/:id/group-enrollments/:group_id (manage_groups): removes the link and the
 * group's sources on the course; an enrollment left without a source closes (progress kept for a
 * later restore). One batch: the state before (who loses access, who keeps it), `course.unenrolled`
 * to those losing their last source (#32, read before the sources go), the sources removed, the
 * enrollments settled and the link deleted last, so every statement before it can still see it.
 */
export async function unenrollGroup(ctx: SchoolCtx, input: { courseId: string; groupId: string }) {
  if (!isUuid(input.groupId)) throw new ApiError(e.INVALID_GROUP_ID);
  const { tenantId } = ctx;
  const { courseId } = input;
  const groupId = input.groupId.toLowerCase();
  const now = ctx.clock.now();
  const key = groupSourceKey(groupId);
  const held = heldSql(tenantId, courseId, sql`SELECT ${key}`);
  const linked = sql`EXISTS (SELECT 1 FROM course_group_enrollments l WHERE ${inSchool("l", tenantId)} AND l.course_id = ${courseId} AND l.group_id = ${groupId})`;
  const losing = sql`SELECT h.student_id FROM (${held}) h WHERE h.sources = 1`;
  const announced = await contentStatements(ctx, { type: "enrollment.removed", courseId, students: losing, via: "group", groupId, now, when: linked });
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT ${linked} AS linked, (SELECT count(*) FROM (${held}) h WHERE h.sources = 1) AS removed,
        (SELECT count(*) FROM (${held}) h WHERE h.sources > 1) AS retained`,
    ),
    ...announced,
    groupUnenrolledAudit(ctx, {
      groupId,
      courseId,
      linked,
      losing: sql`(SELECT count(*) FROM (${held}) h WHERE h.sources = 1)`,
      keeping: sql`(SELECT count(*) FROM (${held}) h WHERE h.sources > 1)`,
    }),
    removeSources(ctx, { tenantId, courseId, keys: [key], when: linked }),
    // The group's sources are held by its members only: adding and removing members keeps them so.
    settleRemovedAt(ctx, { tenantId, courseId, now, students: sql`SELECT gm.user_id FROM group_members gm WHERE ${inSchool("gm", tenantId)} AND gm.group_id = ${groupId}` }),
    batchable(ctx, sql`DELETE FROM course_group_enrollments WHERE ${inSchool(tenantId)} AND course_id = ${courseId} AND group_id = ${groupId}`),
  ]);
  const before = rowsOf<{ linked: number; removed: number; retained: number }>(results[0])[0]!;
  if (!before.linked) throw new ApiError(e.COURSE_GROUP_ENROLLMENT_NOT_FOUND);
  await dispatchQueued(ctx);
  return { removed_count: before.removed, retained_count: before.retained };
}

/**
 * POST /courses/:id/enroll-bulk (manage_groups): exactly one of `group_id` (the group's permanent
 * link, answered as POST group-enrollments, 201 or 200) or `student_ids` (a one-off direct
 * enrollment, answered as POST enroll/bulk, always 200).
 */
export async function enrollBulk(ctx: SchoolCtx, input: { courseId: string; body: { group_id?: string; student_ids?: string[] } }) {
  const { group_id: groupId, student_ids: studentIds } = input.body;
  if ((groupId === undefined) === (studentIds === undefined)) throw new ApiError(e.INVALID_BODY);
  if (groupId !== undefined) {
    const { created, data } = await enrollGroup(ctx, { courseId: input.courseId, groupId });
    return { status: created ? (201 as const) : (200 as const), data };
  }
  return { status: 200 as const, data: await bulkEnroll(ctx, { courseId: input.courseId, studentIds: studentIds! }) };
}
