import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { auditEntry } from "../../platform/audit/write";
import { auditFromRows, rowJson } from "../../platform/audit/from-row";

/**
 * The groups' audit entries (docs/decisions/audit.md, "Content actions"). A membership change is one
 * entry per request on the group, `student_ids` `[null, [added]]` or `[[removed], null]` (request
 * order), not one per student: a 500-student request stays one row.
 */

/** `group.member_added`, after the memberships' INSERT: `joined` selects the user ids this batch added (none: no entry). */
export function membersAddedAudit(ctx: SchoolCtx, input: { groupId: string; requestedJson: string; joined: SQL }): BatchItem {
  const added = sql`SELECT r.value FROM json_each(${input.requestedJson}) r WHERE r.value IN (${input.joined}) ORDER BY r.key`;
  return auditFromRows(ctx, {
    always: true,
    action: "group.member_added",
    targetType: "group",
    targetId: input.groupId,
    summary: sql`(SELECT count(*) FROM (${added})) || ' added to the group'`,
    changes: { student_ids: [null, rowJson(sql`SELECT json_group_array(a.value) FROM (${added}) a`)] },
    when: sql`EXISTS (${input.joined})`,
  });
}

/** `group.member_removed`, before the memberships' DELETE, under that DELETE's condition (all or nothing). */
export function membersRemovedAudit(ctx: SchoolCtx, input: { groupId: string; studentIds: readonly string[]; applies: SQL }): BatchItem {
  return auditEntry(ctx, {
    action: "group.member_removed",
    targetType: "group",
    targetId: input.groupId,
    summary: `${input.studentIds.length} removed from the group`,
    changes: { student_ids: [[...input.studentIds], null] },
    when: input.applies,
  });
}

/**
 * `group_enrollment.removed`, on the group, before its sources go (`linked`: the link exists; `losing`
 * and `keeping`: counts of students losing access and keeping it through another source).
 */
export function groupUnenrolledAudit(ctx: SchoolCtx, input: { groupId: string; courseId: string; linked: SQL; losing: SQL; keeping: SQL }): BatchItem {
  return auditFromRows(ctx, {
    always: true,
    action: "group_enrollment.removed",
    targetType: "group",
    targetId: input.groupId,
    summary: sql`'Group removed from the course: ' || ${input.losing} || ' lost access, ' || ${input.keeping} || ' kept it'`,
    changes: { course_id: [input.courseId, null] },
    when: input.linked,
  });
}

/**
 * `group.member_removed` of a group's deletion, before its memberships go: every member (joining
 * order), only when this batch deleted the group (`deletedNow`) and it had members.
 */
export function groupDeletedMembersAudit(ctx: SchoolCtx, input: { groupId: string; deletedNow: SQL }): BatchItem {
  const members = sql`SELECT m.user_id FROM group_members m WHERE ${inSchool("m", ctx.tenantId)} AND m.group_id = ${input.groupId} ORDER BY m.joined_at, m.user_id`;
  return auditFromRows(ctx, {
    always: true,
    action: "group.member_removed",
    targetType: "group",
    targetId: input.groupId,
    summary: sql`'Group deleted: ' || (SELECT count(*) FROM (${members})) || ' removed from the group'`,
    changes: { student_ids: [rowJson(sql`SELECT json_group_array(d.user_id) FROM (${members}) d`), null] },
    when: sql`${input.deletedNow} AND EXISTS (${members})`,
  });
}
