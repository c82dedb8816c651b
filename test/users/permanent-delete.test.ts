import { env } from "cloudflare:test";
import { eq, getTableName } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { uuidv7 } from "../../src/core/lib/ids";
import { PERSONAL_DATA, isUserReferenceColumn, registeredColumns } from "../../src/platform/users/personal-data";
import { createSchool, createUser, db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { addGroupCurator, addMember, as, createGroup, curatorWith, outboxFor, schoolWithAdmin, signedIn, unknownId, userRow } from "../helpers/users";

/** Every user-reference column of a school database's live schema (all school migrations applied). */
async function userReferenceColumns() {
  const tables = await env.DB_SCHOOLS_0.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  const found: { table: string; column: string }[] = [];
  for (const { name } of tables.results) {
    const columns = await env.DB_SCHOOLS_0.prepare(`PRAGMA table_info("${name.replaceAll('"', '""')}")`).all<{ name: string }>();
    for (const column of columns.results) if (isUserReferenceColumn(column.name)) found.push({ table: name, column: column.name });
  }
  return found;
}

/** Rows naming `value` in every database (ids are unique across them, so the sum is exact). */
async function count(table: string, column: string, value: string) {
  let total = 0;
  for (const binding of [env.DB, env.DB_SCHOOLS_0, env.DB_SCHOOLS_1!]) {
    const row = await binding
      .prepare(`SELECT count(*) AS n FROM "${table}" WHERE "${column}" = ?`)
      .bind(value)
      .first<{ n: number }>()
      .catch((err: unknown) => (/no such table/.test(String(err)) ? { n: 0 } : Promise.reject(err)));
    total += row!.n;
  }
  return total;
}

describe("personal-data registry", () => {
  it("covers every table of the database with a user-reference column", async () => {
    const registered = new Set(registeredColumns().map((entry) => `${entry.table}.${entry.column}`));
    const live = await userReferenceColumns();
    expect(live.length).toBeGreaterThan(0);
    const missing = live.map((entry) => `${entry.table}.${entry.column}`).filter((key) => !registered.has(key));
    expect(missing, "add these columns to PERSONAL_DATA in src/platform/users/personal-data.ts").toEqual([]);
  });

  it("names only columns that exist", async () => {
    const live = new Set((await userReferenceColumns()).map((entry) => `${entry.table}.${entry.column}`));
    for (const entry of registeredColumns()) expect(live.has(`${entry.table}.${entry.column}`), `${entry.table}.${entry.column}`).toBe(true);
  });
});

/** One row in every registered table pointing at `userId`, plus rows of a bystander that must survive. */
async function seedPersonalData(tenantId: string, userId: string, bystanderId: string) {
  const now = Date.now();
  const [courseId, ownEnrollment, bystanderEnrollment] = [uuidv7(), uuidv7(), uuidv7()];
  const [quizId, attemptId] = [uuidv7(), uuidv7()];
  const [assignmentId, submissionId] = [uuidv7(), uuidv7()];
  const group = await createGroup(tenantId);
  await addMember(group, userId);
  await addMember(group, bystanderId);
  await addGroupCurator(group, userId);
  await db().update(schema.users).set({ individualCuratorId: userId }).where(eq(schema.users.id, bystanderId));
  const deviceId = uuidv7();
  await db().batch([
    db().insert(schema.authDevices).values({ id: deviceId, tenantId, userId, platform: "web", lastSeenAt: now, createdAt: now, updatedAt: now }),
    db()
      .insert(schema.sessions)
      .values({ id: uuidv7(), tenantId, userId, authDeviceId: deviceId, lastActivityAt: now, idleExpiresAt: now + 1e6, expiresAt: now + 1e6, createdAt: now }),
    db().insert(schema.deviceEvents).values({ id: uuidv7(), tenantId, userId, type: "login", createdAt: now }),
    db().insert(schema.deviceEvents).values({ id: uuidv7(), tenantId, userId: bystanderId, actorUserId: userId, type: "device_blocked", createdAt: now }),
    db().insert(schema.auditEntries).values({ id: uuidv7(), tenantId, at: now, actorId: userId, actorRole: "admin", actorName: "Gone", action: "user.updated", targetType: "user", targetId: bystanderId, summary: "s", changes: {} }),
    db().insert(schema.deviceLimitOverrides).values({ tenantId, userId, unlimitedDevices: true, createdAt: now, updatedAt: now }),
    db()
      .insert(schema.deviceLimitOverrides)
      .values({ tenantId, userId: bystanderId, unlimitedDevices: true, createdByUserId: userId, createdAt: now, updatedAt: now }),
    db()
      .insert(schema.deviceReplacementTokens)
      .values({ id: uuidv7(), tenantId, userId, tokenHash: uuidv7(), pendingDevice: {}, expiresAt: now + 1e6, createdAt: now }),
    db().insert(schema.emailVerificationTokens).values({ id: uuidv7(), tenantId, userId, tokenHash: uuidv7(), expiresAt: now + 1e6, createdAt: now }),
    db().insert(schema.passwordResetCodes).values({ id: uuidv7(), tenantId, userId, codeHash: "x", expiresAt: now + 1e6, createdAt: now }),
    db()
      .insert(schema.pushDevices)
      .values({ id: uuidv7(), tenantId, userId, installationId: "i1", provider: "fcm", platform: "android", lastSeenAt: now, createdAt: now, updatedAt: now }),
    db().insert(schema.notificationOutbox).values({
      id: uuidv7(),
      tenantId,
      userId,
      eventCode: "test.event",
      category: "test",
      title: "t",
      body: "b",
      data: {},
      dedupeKey: uuidv7(),
      createdAt: now,
    }),
    db().insert(schema.notificationDeliveries).values({
      id: uuidv7(),
      tenantId,
      outboxId: uuidv7(),
      pushDeviceId: uuidv7(),
      userId,
      provider: "log",
      status: "sent",
      createdAt: now,
      updatedAt: now,
    }),
    db().insert(schema.pushPreferences).values({ tenantId, userId, pushEnabled: false, updatedAt: now }),
    db().insert(schema.notificationCampaignRecipients).values({ tenantId, campaignId: uuidv7(), userId }),
    db().insert(schema.notificationCampaigns).values({
      id: uuidv7(),
      tenantId,
      createdByUserId: userId,
      status: "completed",
      title: "t",
      body: "b",
      audienceFilter: { match: "all", rules: [] },
      scheduledAt: now,
      createdAt: now,
      updatedAt: now,
    }),
    db().insert(schema.notificationEventSettings).values({ tenantId, code: "security.password_changed", enabled: false, updatedByUserId: userId, createdAt: now, updatedAt: now }),
    db().insert(schema.mediaAssets).values({
      id: uuidv7(),
      tenantId,
      kind: "pdf",
      filename: "shared.pdf",
      declaredSize: 10,
      declaredMime: "application/pdf",
      sizeBytes: 10,
      mime: "application/pdf",
      status: "confirmed",
      objectKey: `tenant/${tenantId}/shared`,
      uploadedByUserId: userId,
      createdAt: now,
      updatedAt: now,
    }),
    db().insert(schema.courses).values({ id: courseId, tenantId, title: "Shared course", slug: `shared-${courseId}`, position: 0, createdBy: userId, createdAt: now, updatedAt: now }),
    db().insert(schema.enrollments).values({ id: ownEnrollment, tenantId, courseId, studentId: userId, enrolledAt: now, createdAt: now, updatedAt: now }),
    db().insert(schema.enrollments).values({ id: bystanderEnrollment, tenantId, courseId, studentId: bystanderId, enrolledAt: now, enrolledBy: userId, createdAt: now, updatedAt: now }),
    db().insert(schema.enrollmentSources).values({ tenantId, enrollmentId: ownEnrollment, courseId, studentId: userId, kind: "direct", sourceKey: "direct", createdAt: now }),
    db().insert(schema.enrollmentSources).values({ tenantId, enrollmentId: bystanderEnrollment, courseId, studentId: bystanderId, kind: "direct", sourceKey: "direct", createdBy: userId, createdAt: now }),
    db().insert(schema.groups).values({ id: uuidv7(), tenantId, name: "Authored group", createdBy: userId, createdAt: now, updatedAt: now }),
    db().insert(schema.courseGroupEnrollments).values({ id: uuidv7(), tenantId, courseId, groupId: group.id, enrolledAt: now, enrolledBy: userId }),
    db().insert(schema.learningPaths).values({ id: uuidv7(), tenantId, title: "Authored path", createdBy: userId, createdAt: now, updatedAt: now }),
    db().insert(schema.blockCompletions).values({ id: uuidv7(), tenantId, courseId, lessonId: uuidv7(), blockId: uuidv7(), studentId: userId, enrollmentId: ownEnrollment, source: "manual", completedAt: now }),
    db().insert(schema.quizzes).values({ id: quizId, tenantId, title: "Authored quiz", createdBy: userId, createdAt: now, updatedAt: now }),
    db().insert(schema.quizAttempts).values({ id: attemptId, tenantId, quizId, userId, actorRole: "curator", status: "submitted", startedAt: now, submittedAt: now, createdAt: now, updatedAt: now }),
    db().insert(schema.quizAttemptAnswers).values({ id: uuidv7(), tenantId, attemptId, quizId, userId, questionId: uuidv7(), payload: { text: "mine" }, savedAt: now }),
    // A bystander's answer this user graded: the grade stays, the grader is forgotten.
    db().insert(schema.quizAttemptAnswers).values({ id: uuidv7(), tenantId, attemptId: uuidv7(), quizId, userId: bystanderId, questionId: uuidv7(), payload: {}, gradedBy: userId, gradedAt: now, savedAt: now }),
    db().insert(schema.exams).values({ id: uuidv7(), tenantId, title: "Authored exam", timeLimitSeconds: 600, createdBy: userId, createdAt: now, updatedAt: now }),
    db().insert(schema.examAttempts).values({ id: uuidv7(), tenantId, examId: uuidv7(), userId, actorRole: "curator", status: "submitted", startedAt: now, deadlineAt: now + 600_000, createdAt: now, updatedAt: now }),
    // A curator analytics pair naming the user as the student (the group above gives one naming them as the curator).
    db().insert(schema.curatorStudents).values({ tenantId, curatorId: bystanderId, studentId: userId }),
    // The analytics figures kept of the user's attempts.
    db().insert(schema.quizFigures).values({ tenantId, quizId, userId, actorRole: "curator", attemptCount: 1, submittedCount: 1, settledCount: 1, passedCount: 0, pctSum: 0, pctMax: 0, pctMin: 0 }),
    db().insert(schema.quizQuestionFigures).values({ tenantId, quizId, userId, actorRole: "curator", questionId: uuidv7(), answered: 1, correct: 0 }),
    db().insert(schema.examFigures).values({ tenantId, examId: uuidv7(), userId, actorRole: "curator", attemptCount: 1, submittedCount: 1, passedCount: 0 }),
    db().insert(schema.examSectionFigures).values({ tenantId, examId: uuidv7(), userId, actorRole: "curator", sectionId: uuidv7(), pctSum: 0 }),
    // The daily activity flags kept of the user's activity.
    db().insert(schema.studentActivityDays).values({ tenantId, studentId: userId, day: Math.floor(now / 86_400_000), completed: 1, quizSubmitted: 1 }),
    // The user's own accommodation profile, and one they set for a bystander (the setter is forgotten).
    db().insert(schema.accommodations).values({ tenantId, userId, timeMultiplierHundredths: 150, extraTimeSeconds: 0, extraAttempts: 0, updatedAt: now }),
    db().insert(schema.accommodations).values({ tenantId, userId: bystanderId, timeMultiplierHundredths: 150, extraTimeSeconds: 0, extraAttempts: 0, updatedBy: userId, updatedAt: now }),
    // A roster import this user uploaded: its plan holds other people's names and goes with them.
    db().insert(schema.imports).values({ id: uuidv7(), tenantId, kind: "users", status: "ready", createdBy: userId, createdAt: now, expiresAt: now, fileSha256: "0", planHash: "0", counts: {}, columns: [], delimiter: "," }),
    // The user's own certificate, one they revoked for a bystander, and a rule they set.
    db().insert(schema.certificates).values({
      id: uuidv7(), tenantId, code: `0${uuidv7().replaceAll("-", "").slice(-15).toUpperCase()}`, courseId, studentId: userId, title: "T", courseTitle: "T",
      holderFirstName: "A", holderLastName: "B", schoolName: "S", issuer: "s", issuedAt: now, createdAt: now,
    }),
    db().insert(schema.certificates).values({
      id: uuidv7(), tenantId, code: `0${uuidv7().replaceAll("-", "").slice(-15).toUpperCase()}`, courseId, studentId: bystanderId, title: "T", courseTitle: "T",
      holderFirstName: "C", holderLastName: "D", schoolName: "S", issuer: "s", issuedAt: now, revokedAt: now, revokeReason: "r", revokedBy: userId, createdAt: now,
    }),
    db().insert(schema.certificateRules).values({ tenantId, courseId, enabled: true, updatedBy: userId, updatedAt: now }),
    // A regrade this user ran, and their own attempt a regrade re-scored.
    db().insert(schema.quizRegrades).values({ id: uuidv7(), tenantId, quizId, questionId: uuidv7(), seq: 1, mode: "drop", pointsHundredths: 100, status: "done", createdBy: userId, createdAt: now }),
    db().insert(schema.quizRegradeItems).values({ tenantId, regradeId: uuidv7(), attemptId, userId, oldScorePctHundredths: 0, newScorePctHundredths: 0, appliedAt: now }),
    db().insert(schema.assignments).values({ id: assignmentId, tenantId, title: "Authored assignment", createdBy: userId, createdAt: now, updatedAt: now }),
    db().insert(schema.submissions).values({ id: submissionId, tenantId, assignmentId, studentId: userId, attempt: 1, status: "submitted", submittedAt: now, createdAt: now, updatedAt: now }),
    db().insert(schema.submissionAttachments).values({ tenantId, submissionId, studentId: userId, mediaAssetId: uuidv7(), position: 0, createdAt: now }),
    // A bystander's submission this user reviewed: the verdict stays, the reviewer is forgotten.
    db().insert(schema.submissions).values({
      id: uuidv7(), tenantId, assignmentId, studentId: bystanderId, attempt: 1, status: "accepted", scoreHundredths: 9000, gradedById: userId, gradedAt: now, createdAt: now, updatedAt: now,
    }),
    // The user's own points (the trigger writes their rating_totals row) and a bystander's adjustment this user made.
    db().insert(schema.dataExports).values({ id: uuidv7(), tenantId, userId, requestedBy: userId, status: "pending", createdAt: now }),
    db().insert(schema.webhookEvents).values({ id: uuidv7(), tenantId, type: "user.updated", data: "{}", occurredAt: now, subjectUserId: userId }),
    // A rating window over all time: the window triggers write both students' sums there, and
    // deleting the user's point events would write theirs again if their sums went first.
    db().insert(schema.ratingWindows).values({ id: uuidv7(), tenantId, fromMs: 0, toMs: Number.MAX_SAFE_INTEGER, requestedAt: now, readyAt: now }),
    db().insert(schema.curatorReports).values({ id: uuidv7(), tenantId, reportKey: `one curator ${userId}`, curatorId: userId, fromMs: 0, requestedAt: now }),
    db().insert(schema.curatorReportRows).values({ tenantId, reportId: uuidv7(), runId: uuidv7(), curatorId: userId, students: 3, active: 2, onTime: 1, quizzes: 1, exams: 0 }),
    db().insert(schema.pointEvents).values({ id: uuidv7(), tenantId, studentId: userId, sourceType: "manual", sourceKey: `manual:${uuidv7()}`, pointsHundredths: 500, reason: "Own", awardedAt: now }),
    db().insert(schema.pointEvents).values({
      id: uuidv7(), tenantId, studentId: bystanderId, sourceType: "manual", sourceKey: `manual:${uuidv7()}`, pointsHundredths: 250, reason: "Bonus", actorUserId: userId, awardedAt: now,
    }),
  ]);
}

describe("DELETE /t/users/:id/permanent", () => {
  it("removes the account and every personal-data row, and clears the author reference on shared rows", async () => {
    const { school, admin } = await schoolWithAdmin();
    const target = await createUser(school.id, { role: "curator" });
    const bystander = await createUser(school.id, { role: "student" });
    await seedPersonalData(school.id, target.id, bystander.id);
    await as(admin, "/t/users", { body: { email: "leaver@example.test", password: "long-enough", first_name: "Le", last_name: "Aver", role: "student" } });

    for (const entry of registeredColumns()) {
      expect(await count(entry.table, entry.column, target.id), `${entry.table}.${entry.column} seeded`).toBeGreaterThan(0);
    }

    const res = await as(admin, `/t/users/${target.id}/permanent`, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: true, permanent: true } });

    expect(await userRow(target.id)).toBeUndefined();
    for (const entry of registeredColumns()) {
      expect(await count(entry.table, entry.column, target.id), `${entry.table}.${entry.column}`).toBe(0);
    }
    // Shared rows stay, without the reference.
    expect((await userRow(bystander.id))!.individualCuratorId).toBeNull();
    expect(await count("device_events", "user_id", bystander.id)).toBe(1);
    expect(await count("audit_entries", "target_id", bystander.id)).toBe(1);
    expect(await count("accommodations", "user_id", bystander.id)).toBe(1);
    expect(await count("device_limit_overrides", "user_id", bystander.id)).toBe(1);
    expect(await count("group_members", "user_id", bystander.id)).toBe(1);
    expect(await count("enrollments", "student_id", bystander.id)).toBe(1);
    expect(await count("enrollment_sources", "student_id", bystander.id)).toBe(1);
    expect(await count("courses", "tenant_id", school.id)).toBe(1);
    expect(await count("quizzes", "tenant_id", school.id)).toBe(1);
    expect(await count("exams", "tenant_id", school.id)).toBe(1);
    expect(await count("quiz_attempt_answers", "user_id", bystander.id)).toBe(1);
    expect(await count("assignments", "tenant_id", school.id)).toBe(1);
    expect(await count("submissions", "student_id", bystander.id)).toBe(1);
    expect(await count("point_events", "student_id", bystander.id)).toBe(1);
    expect(await count("rating_totals", "student_id", bystander.id)).toBe(1);
    expect(await count("rating_window_totals", "student_id", bystander.id)).toBe(1);

    // Another user's personal data is untouched by the purge of this one.
    expect(await outboxFor(school.id, "leaver@example.test")).toHaveLength(1);
  });

  it("deletes a user's queued emails with the account and can purge a soft-deleted user", async () => {
    const { school, admin } = await schoolWithAdmin();
    const created = await as(admin, "/t/users", {
      body: { email: "gone@example.test", password: "long-enough", first_name: "Go", last_name: "Ne", role: "student" },
    });
    const id = created.body.data.id as string;
    expect(await outboxFor(school.id, "gone@example.test")).toHaveLength(1);
    expect((await as(admin, `/t/users/${id}`, { method: "DELETE" })).status).toBe(200);
    const res = await as(admin, `/t/users/${id}/permanent`, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await userRow(id)).toBeUndefined();
    expect(await outboxFor(school.id, "gone@example.test")).toHaveLength(0);
  });

  it("answers 400 `user not found` for another school's or an unknown user, leaving it intact", async () => {
    const { admin } = await schoolWithAdmin();
    const foreign = await createUser((await createSchool()).id, { role: "student" });
    for (const id of [foreign.id, unknownId()]) {
      const res = await as(admin, `/t/users/${id}/permanent`, { method: "DELETE" });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("user not found");
    }
    expect(await userRow(foreign.id)).toMatchObject({ id: foreign.id });
  });

  it("answers 400 `invalid id format`, 400 `cannot delete yourself` and 403 `forbidden`", async () => {
    const { school, admin } = await schoolWithAdmin();
    expect(failure(await as(admin, "/t/users/zzz/permanent", { method: "DELETE" }))).toEqual({ status: 400, error: "invalid id format" });
    const self = await as(admin, `/t/users/${admin.id}/permanent`, { method: "DELETE" });
    expect(self.status).toBe(400);
    expect(self.body.error).toBe("cannot delete yourself");
    expect(await userRow(admin.id)).toMatchObject({ id: admin.id });

    const curator = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const denied = await as(curator, `/t/users/${admin.id}/permanent`, { method: "DELETE" });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("forbidden");
  });
});

describe("registry sanity", () => {
  it("lists each table and column once", () => {
    const keys = PERSONAL_DATA.map((entry) => `${getTableName(entry.table)}.${entry.column.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
