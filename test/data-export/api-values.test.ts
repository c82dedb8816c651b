import { describe, expect, it } from "vitest";
import { insertCourseTree } from "../helpers/courses";
import { insertExam } from "../helpers/exams";
import { api } from "../helpers/http";
import { giveQuizAccess, insertQuiz } from "../helpers/quizzes";
import { signInOn } from "../helpers/devices";
import { as, createGroup, curatorWith, schoolWithAdmin, signedIn, type Member } from "../helpers/users";
import { studentsCsv, upload } from "../imports/helpers";
import { insertAssignment } from "../content/assignments/helpers";
import { single } from "../content/exams/attempt-helpers";
import { postFiles } from "../content/submissions/helpers";
import { FIXTURES } from "../media/helpers";
import { deliverNow, registerDevice } from "../notifications/helpers";
import { build, download, requestFor } from "./helpers";

type Row = Record<string, unknown>;
type Doc = { user_id: string; profile: Row; tables: Record<string, Row[]> };

/**
 * One record of the document against the API's object for the same record, field by field
 * (docs/decisions/data-export.md, "Values as the API shows them"): every field both have holds the
 * same value; `apiOnly` names what only the API shows (joined, derived or nested), `exportOnly`
 * what only the document holds (the school, keys the route implies, internal columns), and
 * `renamed` pairs an API field with the column that holds it.
 */
function expectSameRecord(row: Row | undefined, apiObject: Row, shape: { apiOnly?: string[]; exportOnly?: string[]; renamed?: Record<string, string> } = {}) {
  expect(row, `no exported row for ${JSON.stringify(apiObject).slice(0, 200)}`).toBeDefined();
  const renamed = shape.renamed ?? {};
  const columnOf = (field: string) => renamed[field] ?? field;
  const apiFields = Object.keys(apiObject);
  const mapped = new Set(apiFields.map(columnOf));
  expect(apiFields.filter((field) => !(columnOf(field) in row!)).sort()).toEqual([...(shape.apiOnly ?? [])].sort());
  expect(Object.keys(row!).filter((column) => !mapped.has(column)).sort()).toEqual([...(shape.exportOnly ?? [])].sort());
  for (const field of apiFields) {
    if (columnOf(field) in row!) expect(row![columnOf(field)], field).toEqual(apiObject[field]);
  }
}

/** The rows of `table` with `column` = `value` (exactly one expected). */
function only(doc: Doc, table: string, match: Row): Row {
  const rows = doc.tables[table]!.filter((row) => Object.entries(match).every(([key, value]) => row[key] === value));
  expect(rows, `${table} ${JSON.stringify(match)}`).toHaveLength(1);
  return rows[0]!;
}

async function ok(response: Promise<{ status: number; body: any }>, status = 200) {
  const res = await response;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body.data;
}

/** The export the admin asks for, built by the queue's consumer, downloaded through its signed link. */
async function exported(admin: Member, person: { id: string; tenantId: string }): Promise<Doc> {
  const asked = await ok(requestFor(admin, person.id), 202);
  await build(person.tenantId, asked.id);
  const read = await ok(as(admin, `/t/data-exports/${asked.id}`));
  expect(read.status).toBe("ready");
  return (await download(read.download_url)).body as Doc;
}

describe("the export document holds each record with the values its API route shows", () => {
  it("a student with data in every area, built through the API: every record compared with the GET of the same record", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const device = await signInOn(student);
    const pushDevice = await registerDevice(student);
    await ok(as(student, "/t/notifications/me/preferences", { method: "PATCH", body: { push_enabled: true } }));
    await ok(as(admin, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Renamed" } }));
    await ok(as(admin, `/t/users/${student.id}/accommodation`, { method: "PUT", body: { time_multiplier: "1.50", extra_time_seconds: 30, extra_attempts: 1, note: "Dyslexia" } }));
    await ok(as(admin, `/t/users/${student.id}/device-policy-override`, { method: "PUT", body: { unlimited_devices: false, max_active_devices: 4, reason: "Two tablets" } }));
    expect((await api("/auth/forgot-password", { body: { email: student.email, subdomain: school.subdomain } })).status).toBe(200);

    // A course: enrolled, its block completed, the certificate its rule issues.
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 1] });
    const enrolled = await ok(as(student, `/t/courses/${tree.courseId}/enroll`, { method: "POST" }), 201);
    await ok(as(admin, `/t/courses/${tree.courseId}/certificate`, { method: "PUT", body: { enabled: true } }));
    const completed = await ok(as(student, `/t/blocks/${tree.blockIds[0]}/complete`, { method: "POST" }));
    const group = await createGroup(school.id);
    await ok(as(admin, `/t/groups/${group.id}/members`, { body: { student_ids: [student.id] } }));

    // A quiz attempt with an answer, and an exam attempt (its section is a quiz attempt too).
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    await giveQuizAccess(school.id, quiz.id, [student.id]);
    const attemptId = (await ok(as(student, "/t/attempts", { method: "POST", body: { quiz_id: quiz.id } }), 201)).id as string;
    await ok(as(student, `/t/attempts/${attemptId}/answers`, { method: "POST", body: { answers: [single(quiz.questions[0]!, true)] } }));
    await ok(as(student, `/t/attempts/${attemptId}/submit`, { method: "POST" }));
    const sectionQuiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const exam = await insertExam(school.id, { title: "Final", sections: [{ quizId: sectionQuiz.id, weight: 1, title: "A" }] });
    const examAttemptId = (await ok(as(student, "/t/exam-attempts", { method: "POST", body: { exam_id: exam.id } }), 201)).id as string;
    await ok(as(student, `/t/exam-attempts/${examAttemptId}/go`, { method: "POST", body: { section_index: 0 } }));
    await ok(as(student, `/t/exam-attempts/${examAttemptId}/sections/0/answers`, { method: "POST", body: { answers: [single(sectionQuiz.questions[0]!, false)] } }));
    await ok(as(student, `/t/exam-attempts/${examAttemptId}/submit`, { method: "POST" }));

    // A submission with a file, handed in and reviewed; a manual bonus.
    const assignment = await insertAssignment(school.id, {});
    const submissionId = (await ok(postFiles(student, assignment.id, [{ name: "photo.png", bytes: FIXTURES.png, type: "image/png" }]), 201)).id as string;
    await ok(as(student, `/t/submissions/${submissionId}/submit`, { method: "POST" }));
    await ok(as(admin, `/t/submissions/${submissionId}/review`, { body: { status: "accepted", score: "87.5", feedback: "Good" } }));
    await ok(as(admin, "/t/admin/rating/adjustments", { body: { student_id: student.id, points: "12.5", reason: "Science fair" } }), 201);

    // The pushes written so far reach the device (the queue would deliver them a moment later).
    await deliverNow(school.id);
    const doc = await exported(admin, student);
    expect(doc.user_id).toBe(student.id);

    // Profile: the API's user object, whole.
    // The detail adds the groups (exported as group_members) and the individual curator (another
    // person's name and email).
    expectSameRecord(doc.profile, await ok(as(admin, `/t/users/${student.id}`)), {
      apiOnly: ["groups", "group_count", "individual_curator_id", "individual_curator_email", "individual_curator_first_name", "individual_curator_last_name"],
    });
    expectSameRecord(doc.profile, await ok(as(student, "/t/me/profile")), { apiOnly: ["tenant"] });

    // Enrollment and its progress (the staff list); the source that enrolled the student no route shows.
    const enrollments = (await ok(as(admin, `/t/courses/${tree.courseId}/enrollments`))).enrollments as Row[];
    expect(enrollments).toHaveLength(1);
    expectSameRecord(only(doc, "enrollments", { id: enrolled.id }), enrollments[0]!, {
      renamed: { enrollment_id: "id" },
      apiOnly: ["student_email", "student_first_name", "student_last_name", "pct", "status"],
      exportOnly: ["tenant_id", "course_id", "removed_at", "last_accessed_block_id", "last_completion_at", "created_at", "updated_at"],
    });
    expectSameRecord(only(doc, "enrollments", { id: enrolled.id }), enrolled, {
      exportOnly: ["tenant_id", "removed_at", "last_accessed_at", "last_completion_at", "blocks_completed", "total_blocks", "completed_at", "created_at", "updated_at"],
    });
    expect(only(doc, "enrollment_sources", { enrollment_id: enrolled.id })).toEqual({
      tenant_id: school.id, enrollment_id: enrolled.id, course_id: tree.courseId, student_id: student.id, kind: "direct", group_id: null, source_key: "direct", created_by: null,
      created_at: enrolled.enrolled_at,
    });

    // Block completions: the completion the API answered, and the student's own list of them.
    expectSameRecord(only(doc, "block_completions", { id: completed.completion.id }), completed.completion, { exportOnly: ["tenant_id", "course_id", "lesson_id"] });
    const mine = await ok(as(student, `/t/courses/${tree.courseId}/my-completions`));
    expect(doc.tables.block_completions!.filter((row) => row.course_id === tree.courseId).map((row) => row.block_id)).toEqual(mine.block_ids);

    // Group membership, as the user's groups show it.
    const groups = (await ok(as(admin, `/t/users/${student.id}/groups`))).groups as Row[];
    expectSameRecord(only(doc, "group_members", { group_id: group.id }), groups[0]!, { apiOnly: ["name", "description"], exportOnly: ["tenant_id", "user_id"] });

    // The quiz attempt and its answer.
    const attempt = await ok(as(student, `/t/attempts/${attemptId}`));
    expectSameRecord(only(doc, "quiz_attempts", { id: attemptId }), attempt, {
      apiOnly: ["time_limit_seconds", "server_now", "remaining_seconds", "saved_answers"],
      exportOnly: ["tenant_id", "exam_attempt_id", "form_seed", "form_question_ids", "form_shuffle_answers", "created_at", "updated_at"],
    });
    expect(attempt.saved_answers).toHaveLength(1);
    expectSameRecord(only(doc, "quiz_attempt_answers", { attempt_id: attemptId }), attempt.saved_answers[0], {
      exportOnly: ["id", "tenant_id", "attempt_id", "quiz_id", "user_id", "client_seq", "graded_by", "graded_at", "saved_at"],
    });

    // The exam attempt; its section's quiz attempt is the student's too.
    const examAttempt = await ok(as(student, `/t/exam-attempts/${examAttemptId}`));
    expectSameRecord(only(doc, "exam_attempts", { id: examAttemptId }), examAttempt, {
      apiOnly: ["time_limit_seconds", "section_attempts", "sections", "server_now", "remaining_seconds"],
      exportOnly: ["tenant_id", "warned_at", "created_at", "updated_at"],
    });
    const sectionAttemptId = examAttempt.section_attempts[0].quiz_attempt_id as string;
    expect(only(doc, "quiz_attempts", { id: sectionAttemptId })).toMatchObject({ exam_attempt_id: examAttemptId, quiz_id: sectionQuiz.id });
    const sectionAttempt = await ok(as(student, `/t/attempts/${sectionAttemptId}`));
    expectSameRecord(only(doc, "quiz_attempt_answers", { attempt_id: sectionAttemptId }), sectionAttempt.saved_answers[0], {
      exportOnly: ["id", "tenant_id", "attempt_id", "quiz_id", "user_id", "client_seq", "graded_by", "graded_at", "saved_at"],
    });

    // The analytics figures kept per person, in hundredths of a percent as the analytics sum them:
    // the quiz and the exam were taken by this student alone, so their analytics are hers.
    const pct = (hundredths: unknown) => (Number(hundredths) / 100).toFixed(2);
    const buckets = (row: Row) => Array.from({ length: 10 }, (_, bucket) => ({ bucket, count: row[`bucket_${bucket}`] }));
    const quizAnalytics = await ok(as(admin, `/t/quizzes/${quiz.id}/analytics`));
    const quizFigures = only(doc, "quiz_figures", { quiz_id: quiz.id });
    expect(quizAnalytics).toMatchObject({
      attempt_count: quizFigures.attempt_count,
      submitted_count: quizFigures.submitted_count,
      avg_score_pct: pct(Number(quizFigures.pct_sum) / Number(quizFigures.settled_count)),
      max_score_pct: pct(quizFigures.pct_max),
      min_score_pct: pct(quizFigures.pct_min),
      score_distribution: buckets(quizFigures),
    });
    const questionFigures = only(doc, "quiz_question_figures", { quiz_id: quiz.id });
    expect(quizAnalytics.per_question).toEqual([
      { question_id: questionFigures.question_id, answered: questionFigures.answered, correct: questionFigures.correct, success_rate: expect.any(String) },
    ]);
    const examAnalytics = await ok(as(admin, `/t/exams/${exam.id}/analytics`));
    const examFigures = only(doc, "exam_figures", { exam_id: exam.id });
    expect(examAnalytics).toMatchObject({
      attempt_count: examFigures.attempt_count,
      submitted_count: examFigures.submitted_count,
      passed_count: examFigures.passed_count,
      avg_score_pct: pct(Number(examFigures.pct_sum) / Number(examFigures.submitted_count)),
      max_score_pct: pct(examFigures.pct_max),
      min_score_pct: pct(examFigures.pct_min),
      score_distribution: buckets(examFigures),
    });
    const sectionFigures = only(doc, "exam_section_figures", { exam_id: exam.id });
    expect(examAnalytics.per_section).toEqual([expect.objectContaining({ section_id: sectionFigures.section_id, avg_score_pct: pct(sectionFigures.pct_sum) })]);

    // The submission, its attachment and the file's record.
    const submission = await ok(as(student, `/t/submissions/${submissionId}`));
    expectSameRecord(only(doc, "submissions", { id: submissionId }), submission, { apiOnly: ["attachments"], exportOnly: ["tenant_id", "reopened_at"] });
    const attachment = submission.attachments[0] as Row;
    expectSameRecord(only(doc, "submission_attachments", { submission_id: submissionId }), attachment, {
      apiOnly: ["filename", "size", "kind", "mime", "url"],
      exportOnly: ["tenant_id", "submission_id", "student_id", "created_at"],
    });
    const file = await ok(as(student, `/t/media/${attachment.media_asset_id}`));
    expectSameRecord(only(doc, "media_assets", { id: attachment.media_asset_id }), file, {
      renamed: { size: "size_bytes" },
      apiOnly: ["presigned_url", "expires_in"],
      exportOnly: ["tenant_id", "declared_size", "declared_mime", "object_key", "etag", "uploaded_by_user_id", "confirmed_at", "object_purged_at", "updated_at", "deleted_at"],
    });

    // Rating: every point event as the staff's event list shows it, and the total.
    const events = (await ok(as(admin, `/t/admin/rating/students/${student.id}/events?limit=100`))).events as Row[];
    expect(doc.tables.point_events!.map((row) => row.id).sort()).toEqual(events.map((event) => event.id).sort());
    for (const event of events) {
      expectSameRecord(only(doc, "point_events", { id: event.id }), event, { apiOnly: ["target_label", "actor_display_name"], exportOnly: ["tenant_id", "student_id", "source_key"] });
    }
    const summary = await ok(as(admin, `/t/admin/rating/students/${student.id}/summary`));
    expect(only(doc, "rating_totals", { student_id: student.id }).points).toBe(summary.school_total);

    // The certificate the completion issued.
    const [certificate] = (await ok(as(student, "/t/students/me/certificates"))).certificates as Row[];
    expectSameRecord(only(doc, "certificates", { id: certificate!.id }), await ok(as(student, `/t/certificates/${certificate!.id}`)), {
      apiOnly: ["holder_name", "status", "verify_url", "pdf_url", "token"],
      exportOnly: ["tenant_id", "holder_first_name", "holder_last_name", "issuer", "revoked_by", "pdf_key", "created_at"],
    });

    // Accommodation and the device override, as their routes show them.
    expectSameRecord(only(doc, "accommodations", { user_id: student.id }), await ok(as(admin, `/t/users/${student.id}/accommodation`)), { exportOnly: ["tenant_id"] });
    expectSameRecord(only(doc, "device_limit_overrides", { user_id: student.id }), await ok(as(admin, `/t/users/${student.id}/device-policy-override`)), { exportOnly: ["tenant_id"] });

    // Devices, their events, the sessions behind them.
    const devices = (await ok(as(admin, `/t/users/${student.id}/devices`))).devices as Row[];
    expect(doc.tables.auth_devices!.map((row) => row.id).sort()).toEqual(devices.map((row) => row.id).sort());
    for (const row of devices) {
      expectSameRecord(only(doc, "auth_devices", { id: row.id }), row, { apiOnly: ["status", "active_sessions", "is_current", "last_ip"], exportOnly: ["tenant_id", "user_id", "updated_at"] });
    }
    const deviceEvents = (await ok(as(admin, `/t/users/${student.id}/device-events`))).events as Row[];
    expect(doc.tables.device_events!.map((row) => row.id).sort()).toEqual(deviceEvents.map((row) => row.id).sort());
    for (const event of deviceEvents) {
      expectSameRecord(only(doc, "device_events", { id: event.id }), event, { apiOnly: ["device_name", "platform"], exportOnly: ["tenant_id", "user_id"] });
    }
    expect(doc.tables.sessions!.map((row) => row.id).sort()).toEqual([student.sessionId, device.sessionId].sort());
    expect(only(doc, "sessions", { id: device.sessionId }).auth_device_id).toBe(device.authDeviceId);

    // Push: the device, the preference, the notifications written to the student.
    const pushDevices = (await ok(as(student, "/t/notifications/me/devices"))).devices as Row[];
    expect(pushDevices.map((row) => row.id)).toEqual([pushDevice.id]);
    expectSameRecord(only(doc, "push_devices", { id: pushDevice.id }), pushDevices[0]!, { exportOnly: ["tenant_id", "user_id", "deleted_at"] });
    expectSameRecord(only(doc, "push_preferences", { user_id: student.id }), (await ok(as(student, "/t/notifications/me/preferences"))).preference, { exportOnly: ["tenant_id", "user_id"] });
    const notifications = (await ok(as(student, "/t/notifications/me?limit=100"))).notifications as Row[];
    expect(notifications.length).toBeGreaterThan(0);
    expect(doc.tables.notification_outbox!.map((row) => row.id).sort()).toEqual(notifications.map((row) => row.id).sort());
    for (const notification of notifications) expectSameRecord(only(doc, "notification_outbox", { id: notification.id }), notification, {
        exportOnly: ["tenant_id", "user_id", "campaign_id", "dedupe_key", "status", "attempts", "lease_until", "last_error", "settled_at"],
      });

    // Each shown notification reached the one push device: a delivery row per notification (no route lists deliveries).
    expect(doc.tables.notification_deliveries!.map((row) => row.outbox_id).sort()).toEqual(notifications.map((row) => row.id).sort());
    for (const row of doc.tables.notification_deliveries!) expect(row).toMatchObject({ push_device_id: pushDevice.id, user_id: student.id });

    // Audit entries about the student, as the audit log shows them (the actor as columns).
    const audit = (await ok(as(admin, `/t/audit-log?target_type=user&target_id=${student.id}`))).entries as Row[];
    expect(doc.tables.audit_entries!.map((row) => row.id).sort()).toEqual(audit.map((entry) => entry.id).sort());
    for (const entry of audit) {
      const row = only(doc, "audit_entries", { id: entry.id });
      expectSameRecord(row, entry, { apiOnly: ["actor"], exportOnly: ["tenant_id", "actor_id", "actor_role", "actor_name", "actor_job"] });
      expect({ id: row.actor_id, role: row.actor_role, name: row.actor_name }).toEqual(entry.actor);
    }

    // The reset code the forgot-password request wrote: when it was asked for, never the code.
    expect(doc.tables.password_reset_codes).toEqual([expect.objectContaining({ user_id: student.id, used_at: null })]);
    expect(Object.keys(doc.tables.password_reset_codes![0]!)).not.toContain("code_hash");
  });

  it("a curator: permissions, the group they curate and the import they uploaded, compared with their routes", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const permissions = await ok(as(admin, `/t/users/${curator.id}/permissions`, {
      method: "PUT",
      body: { can_manage_courses: false, can_manage_students: true, can_manage_groups: true, can_view_analytics: true, can_manage_exams: false, can_manage_notifications: false },
    }));
    const group = await createGroup(school.id);
    await ok(as(admin, `/t/groups/${group.id}/curator`, { method: "PUT", body: { curator_id: curator.id } }));
    const uploaded = await ok(upload(curator, "users", studentsCsv(2)), 201);

    const doc = await exported(admin, curator);
    expectSameRecord(only(doc, "curator_permissions", { user_id: curator.id }), permissions, { exportOnly: ["tenant_id"] });
    const shown = await ok(as(admin, `/t/groups/${group.id}`));
    // The group shows its curator; the row says since when (the PUT that set it changed the group).
    expect(only(doc, "group_curators", { group_id: group.id })).toEqual({ tenant_id: school.id, group_id: shown.id, curator_id: shown.curator_id, created_at: shown.updated_at });
    expect(shown.curator_id).toBe(curator.id);
    expectSameRecord(only(doc, "imports", { id: uploaded.id }), await ok(as(curator, `/t/imports/${uploaded.id}`)), {
      apiOnly: ["preview"],
      exportOnly: ["tenant_id", "created_by", "file_sha256", "columns", "delimiter", "progress"],
    });
  });
});
