import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { uuidv7 } from "../../src/core/lib/ids";
import { buildExport } from "../../src/platform/data-export/build";
import { countingD1 } from "../helpers/d1-counter";
import { db } from "../helpers/factories";
import { schoolD1 } from "../helpers/databases";
import { schoolCtx } from "../helpers/school-ctx";
import { envWith } from "../helpers/wrapped-d1";
import { addGroupCurator, addMember, as, createGroup, schoolWithAdmin, signedIn } from "../helpers/users";
import { exportRow, pendingExport } from "./helpers";

type Doc = { sources: string[]; profile: Record<string, unknown>; tables: Record<string, Record<string, unknown>[]> };

async function buildAndRead(tenantId: string, userId: string): Promise<Doc> {
  const id = await pendingExport(tenantId, userId);
  expect(await buildExport(await schoolCtx(tenantId), { exportId: id })).toBe("ready");
  const row = (await exportRow(id))!;
  const object = await env.MEDIA.get(row.objectKey!);
  const text = await object!.text();
  expect(new TextEncoder().encode(text).byteLength).toBe(row.sizeBytes);
  return JSON.parse(text) as Doc;
}

/** Every table the document reads, as 05 section 7 lists the kinds of data (written out, not read from the code). */
const SOURCES = [
  "accommodations", "audit_entries", "auth_devices", "block_completions", "certificates", "curator_permissions", "curator_report_rows", "curator_reports",
  "curator_students", "device_events",
  "device_limit_overrides", "device_replacement_tokens", "email_verification_tokens", "enrollment_sources", "enrollments",
  "exam_attempts", "exam_figures", "exam_section_figures", "group_curators", "group_members", "imports", "media_assets",
  "notification_campaign_recipients", "notification_deliveries", "notification_outbox", "password_reset_codes", "point_events",
  "push_devices", "push_preferences", "quiz_attempt_answers", "quiz_attempts", "quiz_figures", "quiz_question_figures",
  "quiz_regrade_items", "rating_totals", "rating_window_totals", "sessions", "student_activity_days", "submission_attachments", "submissions", "users",
  "webhook_events",
];

/** Rows of a student in every area, written directly (the API's own values are compared where a route shows them). */
async function seedStudent(tenantId: string, userId: string) {
  const now = Date.now();
  const [courseId, enrollmentId, quizId, attemptId, assignmentId, submissionId, fileId] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  const group = await createGroup(tenantId);
  await addMember(group, userId);
  await addGroupCurator(group, userId);
  const asset = (id: string, filename: string) => ({
    id, tenantId, kind: "image" as const, filename, declaredSize: 10, declaredMime: "image/png", sizeBytes: 10, mime: "image/png",
    status: "confirmed" as const, objectKey: `tenant/${tenantId}/${id}`, uploadedByUserId: userId, createdAt: now, updatedAt: now,
  });
  await db().batch([
    db().insert(schema.mediaAssets).values(asset(fileId, "homework.png")),
    db().insert(schema.deviceEvents).values({ id: uuidv7(), tenantId, userId, type: "login", createdAt: now }),
    db().insert(schema.curatorStudents).values({ tenantId, curatorId: uuidv7(), studentId: userId }),
    db().insert(schema.deviceLimitOverrides).values({ tenantId, userId, unlimitedDevices: true, createdAt: now, updatedAt: now }),
    db().insert(schema.deviceReplacementTokens).values({ id: uuidv7(), tenantId, userId, tokenHash: uuidv7(), pendingDevice: {}, expiresAt: now + 1e6, createdAt: now }),
    db().insert(schema.emailVerificationTokens).values({ id: uuidv7(), tenantId, userId, tokenHash: uuidv7(), expiresAt: now + 1e6, createdAt: now }),
    db().insert(schema.passwordResetCodes).values({ id: uuidv7(), tenantId, userId, codeHash: "x", expiresAt: now + 1e6, createdAt: now }),
    db().insert(schema.pushDevices).values({ id: uuidv7(), tenantId, userId, installationId: "i1", provider: "fcm", platform: "android", tokenHash: "secret-hash", tokenCiphertext: "secret-cipher", lastSeenAt: now, createdAt: now, updatedAt: now }),
    db().insert(schema.notificationOutbox).values({ id: uuidv7(), tenantId, userId, eventCode: "test.event", category: "test", title: "t", body: "b", data: {}, dedupeKey: uuidv7(), createdAt: now }),
    db().insert(schema.notificationDeliveries).values({ id: uuidv7(), tenantId, outboxId: uuidv7(), pushDeviceId: uuidv7(), userId, provider: "log", status: "sent", createdAt: now, updatedAt: now }),
    db().insert(schema.pushPreferences).values({ tenantId, userId, pushEnabled: false, updatedAt: now }),
    db().insert(schema.notificationCampaignRecipients).values({ tenantId, campaignId: uuidv7(), userId }),
    db().insert(schema.curatorPermissions).values({ id: uuidv7(), tenantId, userId, createdAt: now, updatedAt: now }),
    db().insert(schema.courses).values({ id: courseId, tenantId, title: "Course", slug: `c-${courseId}`, position: 0, createdAt: now, updatedAt: now }),
    db().insert(schema.enrollments).values({ id: enrollmentId, tenantId, courseId, studentId: userId, enrolledAt: now, createdAt: now, updatedAt: now }),
    db().insert(schema.enrollmentSources).values({ tenantId, enrollmentId, courseId, studentId: userId, kind: "direct", sourceKey: "direct", createdAt: now }),
    db().insert(schema.blockCompletions).values({ id: uuidv7(), tenantId, courseId, lessonId: uuidv7(), blockId: uuidv7(), studentId: userId, enrollmentId, source: "manual", completedAt: now }),
    db().insert(schema.quizzes).values({ id: quizId, tenantId, title: "Quiz", createdAt: now, updatedAt: now }),
    db().insert(schema.quizAttempts).values({ id: attemptId, tenantId, quizId, userId, actorRole: "student", status: "submitted", startedAt: now, submittedAt: now, createdAt: now, updatedAt: now }),
    // A regrade re-scored the attempt: the student's before and after go into their export.
    db().insert(schema.quizRegradeItems).values({ tenantId, regradeId: uuidv7(), attemptId, userId, oldScorePctHundredths: 5000, oldPassed: false, newScorePctHundredths: 10000, newPassed: true, appliedAt: now }),
    db().insert(schema.quizAttemptAnswers).values({ id: uuidv7(), tenantId, attemptId, quizId, userId, questionId: uuidv7(), payload: { text: "mine" }, savedAt: now }),
    db().insert(schema.examAttempts).values({ id: uuidv7(), tenantId, examId: uuidv7(), userId, actorRole: "student", status: "submitted", startedAt: now, deadlineAt: now + 600_000, createdAt: now, updatedAt: now }),
    db().insert(schema.quizFigures).values({ tenantId, quizId, userId, actorRole: "student", attemptCount: 1, submittedCount: 1, settledCount: 1, passedCount: 0, pctSum: 0, pctMax: 0, pctMin: 0 }),
    db().insert(schema.quizQuestionFigures).values({ tenantId, quizId, userId, actorRole: "student", questionId: uuidv7(), answered: 1, correct: 0 }),
    db().insert(schema.examFigures).values({ tenantId, examId: uuidv7(), userId, actorRole: "student", attemptCount: 1, submittedCount: 1, passedCount: 0 }),
    db().insert(schema.examSectionFigures).values({ tenantId, examId: uuidv7(), userId, actorRole: "student", sectionId: uuidv7(), pctSum: 0 }),
    db().insert(schema.studentActivityDays).values({ tenantId, studentId: userId, day: Math.floor(now / 86_400_000), completed: 1 }),
    db().insert(schema.assignments).values({ id: assignmentId, tenantId, title: "Essay", createdAt: now, updatedAt: now }),
    db().insert(schema.submissions).values({ id: submissionId, tenantId, assignmentId, studentId: userId, attempt: 1, status: "accepted", scoreHundredths: 9050, submittedAt: now, createdAt: now, updatedAt: now }),
    db().insert(schema.submissionAttachments).values({ tenantId, submissionId, studentId: userId, mediaAssetId: fileId, position: 0, createdAt: now }),
    db().insert(schema.pointEvents).values({ id: uuidv7(), tenantId, studentId: userId, sourceType: "manual", sourceKey: `manual:${uuidv7()}`, pointsHundredths: 500, reason: "Bonus", awardedAt: now }),
    // Curator analytics snapshots (the person is also a group's curator here): a report asked for
    // them alone, and their row of a report.
    db().insert(schema.curatorReports).values({ id: uuidv7(), tenantId, reportKey: `one curator ${userId}`, curatorId: userId, fromMs: 0, requestedAt: now }),
    db().insert(schema.curatorReportRows).values({ tenantId, reportId: uuidv7(), runId: uuidv7(), curatorId: userId, students: 3, active: 2, onTime: 1, quizzes: 1, exams: 0 }),
    // A rating window's sum of the student (the board's snapshot of a time window).
    db().insert(schema.ratingWindowTotals).values({ tenantId, windowId: uuidv7(), studentId: userId, pointsHundredths: 500 }),
    db().insert(schema.certificates).values({
      id: uuidv7(), tenantId, code: `0${uuidv7().replaceAll("-", "").slice(-15).toUpperCase()}`, courseId, studentId: userId, title: "Course", courseTitle: "Course",
      holderFirstName: "A", holderLastName: "B", schoolName: "S", issuer: "s", issuedAt: now, createdAt: now,
    }),
    // A roster import the person uploaded (a curator's, in life): their upload goes into their export.
    db().insert(schema.imports).values({ id: uuidv7(), tenantId, kind: "users", status: "ready", createdBy: userId, createdAt: now, expiresAt: now, fileSha256: "0", planHash: "0", counts: {}, columns: [], delimiter: "," }),
    // A user event waiting for the school's webhooks: a copy of their data the school sends out.
    db().insert(schema.webhookEvents).values({ id: uuidv7(), tenantId, type: "user.updated", data: JSON.stringify({ id: userId }), occurredAt: now, subjectUserId: userId }),
  ]);
  return { now, enrollmentId, submissionId, fileId };
}

describe("the export document", () => {
  it("holds a student's rows of every area with the values the API shows, lists every table it read, and no secret", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const seeded = await seedStudent(school.id, student.id);
    // Through the API: an audit entry about the student and an accommodation profile.
    expect((await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Renamed" } })).status).toBe(200);
    const accommodation = await as(admin, `/t/users/${student.id}/accommodation`, { method: "PUT", body: { time_multiplier: "1.50", extra_time_seconds: 30, extra_attempts: 1, note: null } });
    expect(accommodation.status).toBe(200);

    const doc = await buildAndRead(school.id, student.id);
    expect(doc.sources).toEqual(SOURCES);
    expect(Object.keys(doc.tables).sort()).toEqual(SOURCES.filter((name) => name !== "users"));
    const empty = Object.entries(doc.tables).filter(([, rows]) => rows.length === 0).map(([name]) => name);
    expect(empty).toEqual([]);

    // The profile is the API's user object.
    const user = (await as(admin, `/t/users/${student.id}`)).body.data;
    expect(doc.profile).toEqual({
      id: user.id, tenant_id: user.tenant_id, email: user.email, first_name: "Renamed", last_name: user.last_name, avatar: null,
      role: "student", is_active: true, last_active_at: user.last_active_at, created_at: user.created_at, updated_at: user.updated_at,
    });
    expect(doc.tables.accommodations).toEqual([
      { tenant_id: school.id, user_id: student.id, time_multiplier: "1.50", extra_time_seconds: 30, extra_attempts: 1, note: null, updated_by: admin.id, updated_at: accommodation.body.data.updated_at },
    ]);
    expect(doc.tables.audit_entries).toEqual([
      expect.objectContaining({ action: "user.updated", target_type: "user", target_id: student.id, actor_id: admin.id, changes: { first_name: [expect.any(String), "Renamed"] } }),
    ]);
    const iso = new Date(seeded.now).toISOString();
    expect(doc.tables.enrollments).toEqual([expect.objectContaining({ id: seeded.enrollmentId, student_id: student.id, enrolled_at: iso })]);
    expect(doc.tables.submissions).toEqual([expect.objectContaining({ id: seeded.submissionId, status: "accepted", score: "90.50", submitted_at: iso })]);
    expect(doc.tables.point_events).toEqual([expect.objectContaining({ points: "5.00", reason: "Bonus", awarded_at: iso })]);
    expect(doc.tables.quiz_attempt_answers).toEqual([expect.objectContaining({ payload: { text: "mine" } })]);
    expect(doc.tables.push_preferences).toEqual([expect.objectContaining({ push_enabled: false })]);
    // The attachment's file: what it is, not the bytes.
    expect(doc.tables.media_assets).toEqual([expect.objectContaining({ id: seeded.fileId, filename: "homework.png", mime: "image/png", size_bytes: 10 })]);
    // Sign-in through the API left a session and a device.
    expect(doc.tables.sessions).toEqual([expect.objectContaining({ id: student.sessionId })]);

    // No hash, token or cipher text of any table (an import's plan_hash is no secret: the API shows it).
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/"(?!plan_hash")[a-z_]*(hash|token|ciphertext|password)":/);
    expect(doc.tables.imports).toEqual([expect.objectContaining({ plan_hash: "0" })]);
    expect(text).not.toContain("secret-hash");
    expect(text).not.toContain("secret-cipher");
  });

  it("a student with 1,000 attempts and 10,000 answers: paged reads, a bounded number of statements", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const shard = await schoolD1(school.id);
    const now = Date.now();
    await shard.batch([
      shard
        .prepare(
          `INSERT INTO quiz_attempts (id, tenant_id, quiz_id, user_id, actor_role, status, started_at, submitted_at, created_at, updated_at)
           WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
           SELECT printf('att-%s-%05d', ?1, i), ?2, 'quiz', ?1, 'student', 'submitted', ?3, ?3, ?3, ?3 FROM n`,
        )
        .bind(student.id, school.id, now),
      shard
        .prepare(
          `INSERT INTO quiz_attempt_answers (id, tenant_id, attempt_id, quiz_id, user_id, question_id, payload, saved_at)
           WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)
           SELECT printf('ans-%s-%05d', ?1, i), ?2, printf('att-%s-%05d', ?1, i % 1000), 'quiz', ?1, printf('q-%d', i / 1000), '{"text":"a"}', ?3 FROM n`,
        )
        .bind(student.id, school.id, now),
    ]);
    const id = await pendingExport(school.id, student.id);
    const counting = countingD1(shard);
    const ctx = await schoolCtx(school.id, { env: envWith(counting.db) });
    expect(await buildExport(ctx, { exportId: id })).toBe("ready");
    // 1 read of the export; 1 batch of the profile and the first page of each of the 41 tables; 4
    // more pages of attempts and 40 of answers (250 rows each, the last one empty); 1 batch of 2
    // (ready, push). A per-row read would show here as thousands.
    expect(counting.counts).toEqual({ prepare: 89, batch: 2, exec: 0 });

    const row = (await exportRow(id))!;
    const doc = JSON.parse(await (await env.MEDIA.get(row.objectKey!))!.text()) as Doc;
    expect(doc.tables.quiz_attempts).toHaveLength(1000);
    expect(doc.tables.quiz_attempt_answers).toHaveLength(10_000);
    expect(new Set(doc.tables.quiz_attempt_answers!.map((answer) => answer.id)).size).toBe(10_000);
  });
});
