import { and, eq, getTableColumns, getTableName, inArray, isNull, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { forgetPairStatement } from "../auth/login-guard";
import { platformOf } from "../../core/school";
import { batchable, type BatchItem } from "../../core/db/batch";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import {
  accommodations,
  certificateRules,
  certificates,
  auditEntries,
  assignments,
  pointEvents,
  ratingTotals,
  ratingWindowTotals,
  curatorReports,
  curatorReportRows,
  submissionAttachments,
  submissions,
  authDevices,
  blockCompletions,
  courseGroupEnrollments,
  courses,
  enrollmentSources,
  enrollments,
  curatorPermissions,
  curatorStudents,
  deviceEvents,
  deviceLimitOverrides,
  deviceReplacementTokens,
  emailOutbox,
  emailVerificationTokens,
  groupCurators,
  groupMembers,
  groups,
  imports,
  learningPaths,
  examAttempts,
  exams,
  quizAttemptAnswers,
  quizFigures,
  quizQuestionFigures,
  examFigures,
  examSectionFigures,
  studentActivityDays,
  quizAttempts,
  quizRegradeItems,
  quizRegrades,
  quizzes,
  mediaAssets,
  dataExports,
  notificationCampaignRecipients,
  notificationCampaigns,
  notificationDeliveries,
  notificationEventSettings,
  notificationOutbox,
  passwordResetCodes,
  pushDevices,
  pushPreferences,
  sessions,
  users,
  webhookDeliveries,
  webhookEvents,
} from "../../db/schema";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { inSchool } from "../../core/db/conditions";

/**
 * What a permanent user deletion does to every column that refers to a user.
 * `delete`: the rows are the user's personal data and go with the account.
 * `clear`: the rows are shared school content (or someone else's history); only the reference is
 * set to NULL, so the content stays without an author.
 *
 * Every column `isUserReferenceColumn` recognises must appear here: test/users/permanent-delete.test.ts
 * reads the live schema and fails otherwise. An area that adds such a column adds its line here in
 * the same change.
 */
interface PersonalDataRule {
  table: SQLiteTable;
  column: SQLiteColumn;
  action: "delete" | "clear";
}

const rule = <T extends SQLiteTable>(table: T, column: SQLiteColumn, action: PersonalDataRule["action"]): PersonalDataRule => ({
  table,
  column,
  action,
});

export const PERSONAL_DATA: readonly PersonalDataRule[] = [
  // Sign-in state and devices.
  rule(sessions, sessions.userId, "delete"),
  rule(authDevices, authDevices.userId, "delete"),
  rule(deviceEvents, deviceEvents.userId, "delete"),
  rule(deviceEvents, deviceEvents.actorUserId, "clear"),
  // The school's record of who changed what outlives the person: only the link to the account goes.
  rule(auditEntries, auditEntries.actorId, "clear"),
  rule(deviceLimitOverrides, deviceLimitOverrides.userId, "delete"),
  rule(deviceLimitOverrides, deviceLimitOverrides.createdByUserId, "clear"),
  rule(deviceReplacementTokens, deviceReplacementTokens.userId, "delete"),
  rule(emailVerificationTokens, emailVerificationTokens.userId, "delete"),
  rule(passwordResetCodes, passwordResetCodes.userId, "delete"),
  // Notifications.
  rule(pushDevices, pushDevices.userId, "delete"),
  rule(notificationOutbox, notificationOutbox.userId, "delete"),
  rule(notificationDeliveries, notificationDeliveries.userId, "delete"),
  rule(pushPreferences, pushPreferences.userId, "delete"),
  rule(notificationCampaignRecipients, notificationCampaignRecipients.userId, "delete"),
  rule(notificationCampaigns, notificationCampaigns.createdByUserId, "clear"),
  rule(notificationEventSettings, notificationEventSettings.updatedByUserId, "clear"),
  // Groups and curation.
  rule(groupMembers, groupMembers.userId, "delete"),
  rule(groupCurators, groupCurators.curatorId, "delete"),
  rule(curatorPermissions, curatorPermissions.userId, "delete"),
  rule(users, users.individualCuratorId, "clear"),
  // The analytics scope pairs of either side go with the account; nobody else's pair changes.
  rule(curatorStudents, curatorStudents.curatorId, "delete"),
  rule(curatorStudents, curatorStudents.studentId, "delete"),
  // Payments live in the control database and only the superadmin records them: no school user is their operator.
  // Learning: a student's enrollments, their access sources and completions are the student's
  // record and go; who enrolled someone or wrote a course is only a reference.
  rule(enrollments, enrollments.studentId, "delete"),
  rule(enrollments, enrollments.enrolledBy, "clear"),
  rule(enrollmentSources, enrollmentSources.studentId, "delete"),
  rule(enrollmentSources, enrollmentSources.createdBy, "clear"),
  rule(blockCompletions, blockCompletions.studentId, "delete"),
  rule(studentActivityDays, studentActivityDays.studentId, "delete"),
  rule(courses, courses.createdBy, "clear"),
  rule(groups, groups.createdBy, "clear"),
  rule(courseGroupEnrollments, courseGroupEnrollments.enrolledBy, "clear"),
  rule(learningPaths, learningPaths.createdBy, "clear"),
  rule(quizzes, quizzes.createdBy, "clear"),
  rule(exams, exams.createdBy, "clear"),
  rule(examAttempts, examAttempts.userId, "delete"),
  rule(quizAttempts, quizAttempts.userId, "delete"),
  rule(quizAttemptAnswers, quizAttemptAnswers.userId, "delete"),
  rule(quizAttemptAnswers, quizAttemptAnswers.gradedBy, "clear"),
  // The analytics figures kept of those attempts, per member.
  rule(quizFigures, quizFigures.userId, "delete"),
  rule(quizQuestionFigures, quizQuestionFigures.userId, "delete"),
  rule(examFigures, examFigures.userId, "delete"),
  rule(examSectionFigures, examSectionFigures.userId, "delete"),
  // Curator analytics snapshots: a report asked for one curator, and every curator's row of any report.
  rule(curatorReports, curatorReports.curatorId, "delete"),
  rule(curatorReportRows, curatorReportRows.curatorId, "delete"),
  // A regrade lists the attempts it re-scored (with their scores before and after); the staff member who asked is only forgotten.
  rule(quizRegradeItems, quizRegradeItems.userId, "delete"),
  rule(quizRegrades, quizRegrades.createdBy, "clear"),
  // An accommodation profile is the student's own (often health-related) data; the staff member who set one is only forgotten.
  rule(accommodations, accommodations.userId, "delete"),
  rule(accommodations, accommodations.updatedBy, "clear"),
  // A certificate names its holder: it is the student's record and goes with the account (verify then answers 404).
  rule(certificates, certificates.studentId, "delete"),
  rule(certificates, certificates.revokedBy, "clear"),
  rule(certificateRules, certificateRules.updatedBy, "clear"),
  rule(assignments, assignments.createdBy, "clear"),
  rule(submissions, submissions.studentId, "delete"),
  rule(submissions, submissions.gradedById, "clear"),
  rule(submissionAttachments, submissionAttachments.studentId, "delete"),
  rule(pointEvents, pointEvents.studentId, "delete"),
  rule(pointEvents, pointEvents.actorUserId, "clear"),
  rule(ratingTotals, ratingTotals.studentId, "delete"),
  // After the point events: deleting those runs the window triggers, which would write the sums again.
  rule(ratingWindowTotals, ratingWindowTotals.studentId, "delete"),
  // Uploaded files may be shared school content (covers, attachments): they stay without their uploader.
  rule(mediaAssets, mediaAssets.uploadedByUserId, "clear"),
  // A roster import's plan holds the file's names and addresses: it goes with the person who uploaded it.
  rule(imports, imports.createdBy, "delete"),
  // Cleared, not deleted: the cron then removes the export's file from R2 at its next run (docs/decisions/data-export.md, "Expiry").
  rule(dataExports, dataExports.userId, "clear"),
  rule(dataExports, dataExports.requestedBy, "clear"),
  // The copies of the person's data waiting in the webhook outbox (their deliveries go first, in permanentDeletionStatements).
  rule(webhookEvents, webhookEvents.subjectUserId, "delete"),
];

/**
 * Columns that hold the media-asset id of a person's own file (avatars, submission files), with
 * the column that names the person. These assets go with the person: on a permanent
 * user deletion, and for every member when the school is deleted. Files of shared school content
 * (covers, logos, lesson attachments) are not listed and keep existing.
 */
interface PersonalFileRule {
  table: SQLiteTable;
  asset: SQLiteColumn;
  owner: SQLiteColumn;
  school: SQLiteColumn;
}

export const PERSONAL_FILES: readonly PersonalFileRule[] = [
  { table: users, asset: users.avatar, owner: users.id, school: users.tenantId },
  {
    table: submissionAttachments,
    asset: submissionAttachments.mediaAssetId,
    owner: submissionAttachments.studentId,
    school: submissionAttachments.tenantId,
  },
];

/**
 * Marks the personal files of one user (`{ userId }`) or of every member of the school (`{}`)
 * deleted, in the caller's batch: they stop being served at once, and the media sweep (cron)
 * removes their objects from R2 and then the rows, so no object outlives its asset. The personal
 * objects (PERSONAL_OBJECTS) get their tombstones in the same statements' batch.
 */
export function personalFilesDeletion(ctx: SchoolCtx<SchoolActor>, scope: { userId?: string }): BatchItem[] {
  const tenantId = ctx.tenantId;
  const now = ctx.clock.now();
  const assets = PERSONAL_FILES.map((entry) => {
    const owned = ctx.db
      .select({ id: sql<string>`${entry.asset}` })
      .from(entry.table)
      .where(and(eq(entry.school, tenantId), scope.userId === undefined ? undefined : eq(entry.owner, scope.userId)));
    return ctx.db
      .update(mediaAssets)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(inSchool(mediaAssets, tenantId), isNull(mediaAssets.deletedAt), inArray(mediaAssets.id, owned)));
  });
  return [...assets, ...personalObjectTombstones(ctx, scope, now)];
}

/**
 * Columns that hold the R2 key of an object made from a person's row, not a media asset (a
 * certificate's PDF), with the column that names the person. When the person goes, so must the
 * object, yet only the sweep deletes objects (a deletion's batch cannot reach R2): the batch writes
 * a deleted media-asset row naming the key, a tombstone no one can read, and the media sweep
 * removes the object and then the tombstone, as for any deleted asset. `personalFilesDeletion`
 * writes them, so they come before the rows that name the keys are gone.
 */
interface PersonalObjectRule {
  table: SQLiteTable;
  key: SQLiteColumn;
  owner: SQLiteColumn;
  school: SQLiteColumn;
}

export const PERSONAL_OBJECTS: readonly PersonalObjectRule[] = [
  { table: certificates, key: certificates.pdfKey, owner: certificates.studentId, school: certificates.tenantId },
];

function personalObjectTombstones(ctx: SchoolCtx<SchoolActor>, scope: { userId?: string }, now: number): BatchItem[] {
  return PERSONAL_OBJECTS.map((entry) =>
    batchable(
      ctx,
      sql`INSERT INTO media_assets (id, tenant_id, kind, filename, declared_size, declared_mime, size_bytes, mime, status, object_key, created_at, updated_at, deleted_at)
        SELECT ${sqlUuidv7(now)}, ${ctx.tenantId}, 'document', 'personal-object', 0, 'application/octet-stream', 0, 'application/octet-stream', 'confirmed', ${entry.key}, ${now}, ${now}, ${now}
        FROM ${entry.table} WHERE ${entry.school} = ${ctx.tenantId} AND ${entry.key} IS NOT NULL
          ${scope.userId === undefined ? sql`` : sql`AND ${entry.owner} = ${scope.userId}`}`,
    ),
  );
}

/** `table.column` names of the registry, as the database spells them. */
export function registeredColumns(): { table: string; column: string; action: PersonalDataRule["action"] }[] {
  return PERSONAL_DATA.map((entry) => ({ table: getTableName(entry.table), column: entry.column.name, action: entry.action }));
}

/**
 * The last word before `_id` of a column that names a person: `student_id`, `reviewer_id`,
 * `individual_curator_id`. Words that usually name something else (`parent_id`: a parent row,
 * `host_id`: a machine, `account_id`: a provider's account) are left out; an area whose column of
 * that kind does hold a user id registers it all the same, as the schema test cannot ask for it.
 */
const PERSON_WORDS = new Set([
  "user", "student", "pupil", "learner", "curator", "teacher", "tutor", "instructor", "mentor", "coach", "admin", "staff",
  "author", "creator", "owner", "editor", "reviewer", "grader", "examiner", "proctor", "approver", "moderator", "checker",
  "verifier", "assignee", "assigner", "actor", "operator", "member", "participant", "attendee", "respondent", "submitter",
  "sender", "recipient", "receiver", "requester", "inviter", "invitee", "uploader", "commenter", "viewer", "manager",
  "supervisor", "organizer", "speaker", "subscriber", "follower", "winner", "awardee", "awarder", "person",
]);

/** `*_by` columns that name a sort or grouping key, not who did something. */
const NOT_AN_AGENT = new Set(["sort_by", "order_by", "group_by", "partition_by"]);

/**
 * The column names the registry must cover, read word by word (`_`): `user_id` and `*_user_id`,
 * who did something (`created_by`, `graded_by_id`, `awarded_by`), and a person's role before
 * `_id` (`student_id`, `curator_id`, `reviewer_id`, see PERSON_WORDS). Matching too much is the
 * cheap mistake: a rule on a column that never holds a user id changes nothing, while a missed
 * column keeps a deleted user's data.
 */
export function isUserReferenceColumn(name: string): boolean {
  const words = name.toLowerCase().split("_");
  const last = words.at(-1);
  if (last === "by") return words.length > 1 && !NOT_AN_AGENT.has(name.toLowerCase());
  if (last !== "id" || words.length < 2) return false;
  const subject = words.at(-2)!;
  return subject === "by" || PERSON_WORDS.has(subject);
}

function propertyOf(table: SQLiteTable, column: SQLiteColumn): string {
  const entry = Object.entries(getTableColumns(table)).find(([, candidate]) => candidate === column);
  if (!entry) throw new Error(`${column.name} is not a column of ${getTableName(table)}`);
  return entry[0];
}

/**
 * All writes of a permanent deletion in the school's shard, for one `db.batch`: the registry's
 * rules, the user's queued emails (they hold the address and name), then the account. The sign-in
 * counter keyed by the email is the control database's (`permanentDeletionControlStatement`).
 * The registry's rules match on the user id alone, not the school: the caller has checked that the
 * id is a user of its school, and some referring tables allow a null school (sessions, device
 * events), so a school filter could leave personal rows behind.
 */
export function permanentDeletionStatements(ctx: SchoolCtx, target: { id: string; email: string }): BatchItem[] {
  // Before the rows that name the files are gone.
  const statements: BatchItem[] = personalFilesDeletion(ctx, { userId: target.id });
  // Ahead of the rule that clears actor_id, which these find the person's entries by. The log keeps
  // what happened and the actor's role, not who the person was (docs/decisions/audit.md, "Personal data").
  statements.push(
    ctx.db.update(auditEntries).set({ actorName: null }).where(and(inSchool(auditEntries, ctx.tenantId), eq(auditEntries.actorId, target.id))),
    ctx.db
      .update(auditEntries)
      .set({ changes: {} })
      .where(and(inSchool(auditEntries, ctx.tenantId), eq(auditEntries.targetType, "user"), eq(auditEntries.targetId, target.id))),
  );
  // Ahead of the rule that deletes the events: a delivery left without its event would be tried and
  // counted as a failure (docs/decisions/webhooks.md, "Personal data in events").
  statements.push(
    ctx.db
      .delete(webhookDeliveries)
      .where(
        and(
          inSchool(webhookDeliveries, ctx.tenantId),
          inArray(webhookDeliveries.eventId, ctx.db.select({ id: webhookEvents.id }).from(webhookEvents).where(and(inSchool(webhookEvents, ctx.tenantId), eq(webhookEvents.subjectUserId, target.id)))),
        ),
      ),
  );
  statements.push(...PERSONAL_DATA.map((entry) =>
    entry.action === "delete"
      ? ctx.db.delete(entry.table).where(eq(entry.column, target.id))
      : ctx.db
          .update(entry.table)
          .set({ [propertyOf(entry.table, entry.column)]: null })
          .where(eq(entry.column, target.id)),
  ));
  statements.push(ctx.db.delete(emailOutbox).where(and(inSchool(emailOutbox, ctx.tenantId), eq(emailOutbox.toEmail, target.email))));
  statements.push(ctx.db.delete(users).where(and(eq(users.id, target.id), inSchool(users, ctx.tenantId))));
  return statements;
}

/** The control database's part of a permanent deletion: the sign-in counter keyed by the email. */
export function permanentDeletionControlStatement(ctx: SchoolCtx, target: { email: string }) {
  return forgetPairStatement(platformOf(ctx), { tenantId: ctx.tenantId, email: target.email });
}
