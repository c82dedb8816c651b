import { describe, expect, it } from "vitest";
import { ISO as ISO_PATTERN } from "../../helpers/courses";
import { failure } from "../../helpers/http";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { assignmentRow, createAssignment, deleteAssignment, getAssignment, insertAssignment, insertSubmission, patchAssignment } from "./helpers";

const ISO = expect.stringMatching(ISO_PATTERN);

describe("POST /t/assignments", () => {
  it("creates an assignment with its defaults: 201, max_score 100.00, unlimited attempts, sanitized instructions", async () => {
    const { school, admin } = await schoolWithAdmin();
    const res = await createAssignment(admin, { title: "  Essay ", instructions: "<p>Write <b>two</b> pages</p><script>alert(1)</script>" });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      title: "Essay",
      instructions: "<p>Write <b>two</b> pages</p>",
      max_score: "100.00",
      max_attempts: null,
      screenshot_protection_enabled: false,
      attachments: [],
      created_at: ISO,
      updated_at: ISO,
    });
    expect(await assignmentRow(res.body.data.id)).toMatchObject({ tenantId: school.id, createdBy: admin.id, maxScoreHundredths: 10_000, maxAttempts: null, deletedAt: null });
    const plain = await createAssignment(admin, { title: "Plain" });
    expect(plain.body.data).toMatchObject({ instructions: "", max_score: "100.00", max_attempts: null });
  });

  it("takes every setting at its bounds; max_score as a string or a number", async () => {
    const { admin } = await schoolWithAdmin();
    const low = await createAssignment(admin, { title: "A", max_score: "0.01", max_attempts: 1, screenshot_protection_enabled: true });
    expect(low.status).toBe(201);
    expect(low.body.data).toMatchObject({ title: "A", max_score: "0.01", max_attempts: 1, screenshot_protection_enabled: true });
    const high = await createAssignment(admin, { title: "x".repeat(255), max_score: 100000, max_attempts: 1000, instructions: "i".repeat(20_000) });
    expect(high.body.data).toMatchObject({ max_score: "100000.00", max_attempts: 1000 });
    expect((await createAssignment(admin, { title: "B", max_score: "50.5", max_attempts: null })).body.data).toMatchObject({ max_score: "50.50", max_attempts: null });
  });

  it("400 invalid_request_body for a missing or wrong field, outside the limits, or an unknown key", async () => {
    const { admin } = await schoolWithAdmin();
    const valid = { title: "Essay" };
    for (const body of [
      {},
      { ...valid, title: "" },
      { ...valid, title: "   " },
      { ...valid, title: "x".repeat(256) },
      { ...valid, title: 5 },
      { ...valid, instructions: "i".repeat(20_001) },
      { ...valid, max_score: "0" },
      { ...valid, max_score: 0 },
      { ...valid, max_score: "-1" },
      { ...valid, max_score: "100000.01" },
      { ...valid, max_score: "12.345" },
      { ...valid, max_score: "abc" },
      { ...valid, max_score: null },
      { ...valid, max_attempts: 0 },
      { ...valid, max_attempts: 1001 },
      { ...valid, max_attempts: 1.5 },
      { ...valid, max_attempts: "3" },
      { ...valid, screenshot_protection_enabled: "yes" },
      { ...valid, clear_max_attempts: true },
      { ...valid, status: "published" },
    ]) {
      expect({ body, ...failure(await createAssignment(admin, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    expect({ ...failure(await as(admin, "/t/assignments", { method: "POST", raw: "{not json" })) }).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it("403 permission_denied: a curator needs can_manage_courses; a student never", async () => {
    const { school } = await schoolWithAdmin();
    const body = { title: "Essay" };
    expect(failure(await createAssignment(await signedIn(school, curatorWith({ can_manage_exams: true })), body))).toEqual({ status: 403, error: "permission_denied" });
    expect(failure(await createAssignment(await signedIn(school, { role: "student" }), body))).toEqual({ status: 403, error: "permission_denied" });
    expect((await createAssignment(await signedIn(school, curatorWith({ can_manage_courses: true })), body)).status).toBe(201);
  });
});

describe("PATCH /t/assignments/:id", () => {
  it("changes any field; clear_max_attempts makes attempts unlimited; an empty body changes nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const assignment = await insertAssignment(school.id, { title: "Old", maxAttempts: 2, createdAt: Date.now() - 60_000 });
    const res = await patchAssignment(admin, assignment.id, {
      title: " New ",
      instructions: "<p>new</p><img src=x onerror=alert(1)>",
      max_score: "50.50",
      max_attempts: 5,
      screenshot_protection_enabled: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: assignment.id,
      title: "New",
      instructions: "<p>new</p>",
      max_score: "50.50",
      max_attempts: 5,
      screenshot_protection_enabled: true,
      attachments: [],
      created_at: ISO,
      updated_at: ISO,
    });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(res.body.data.created_at));
    expect((await patchAssignment(admin, assignment.id, { clear_max_attempts: true })).body.data).toMatchObject({ max_attempts: null, title: "New" });
    expect((await patchAssignment(admin, assignment.id, { clear_max_attempts: false })).body.data).toMatchObject({ max_attempts: null });
    const before = await assignmentRow(assignment.id);
    const empty = await patchAssignment(admin, assignment.id, {});
    expect(empty.body.data).toMatchObject({ id: assignment.id, title: "New", max_score: "50.50" });
    expect((await assignmentRow(assignment.id)).updatedAt).toBe(before.updatedAt);
  });

  it("a new max_score leaves the scores already given as they are", async () => {
    const { school, admin } = await schoolWithAdmin();
    const assignment = await insertAssignment(school.id);
    const student = await signedIn(school, { role: "student" });
    await insertSubmission(school.id, assignment.id, student.id, { status: "accepted", scoreHundredths: 9000 });
    expect((await patchAssignment(admin, assignment.id, { max_score: "50" })).body.data).toMatchObject({ max_score: "50.00" });
    expect((await getAssignment(student, assignment.id)).body.data).toMatchObject({ max_score: "50.00", my_submission_status: "accepted", my_submission_score: "90.00" });
  });

  it("400 invalid_request_body for a bad field, max_attempts with clear_max_attempts, null max_attempts, an unknown key", async () => {
    const { school, admin } = await schoolWithAdmin();
    const assignment = await insertAssignment(school.id);
    for (const body of [
      { title: "" },
      { max_score: "0" },
      { max_score: "1e3" },
      { max_attempts: 0 },
      { max_attempts: null },
      { max_attempts: 3, clear_max_attempts: true },
      { clear_max_attempts: "yes" },
      { nope: 1 },
    ]) {
      expect({ body, ...failure(await patchAssignment(admin, assignment.id, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
  });

  it("404 assignment_not_found: unknown, deleted, another school's; 400 invalid_id_format for a bad id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const deleted = await insertAssignment(school.id, { deleted: true });
    const foreign = await insertAssignment((await schoolWithAdmin()).school.id);
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await patchAssignment(admin, id, { title: "X" }))).toEqual({ status: 404, error: "assignment_not_found" });
      expect(failure(await patchAssignment(admin, id, {}))).toEqual({ status: 404, error: "assignment_not_found" });
    }
    expect((await assignmentRow(foreign.id)).title).not.toBe("X");
    expect(failure(await patchAssignment(admin, "nope", { title: "X" }))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("403 permission_denied for a curator without can_manage_courses and for a student", async () => {
    const { school } = await schoolWithAdmin();
    const assignment = await insertAssignment(school.id);
    for (const member of [await signedIn(school, curatorWith({ can_manage_students: true })), await signedIn(school, { role: "student" })]) {
      expect(failure(await patchAssignment(member, assignment.id, { title: "X" }))).toEqual({ status: 403, error: "permission_denied" });
    }
  });
});

describe("DELETE /t/assignments/:id", () => {
  it("soft-deletes: 204 without a body; then 404 everywhere", async () => {
    const { school, admin } = await schoolWithAdmin();
    const assignment = await insertAssignment(school.id);
    const res = await deleteAssignment(admin, assignment.id);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await assignmentRow(assignment.id)).deletedAt).toEqual(expect.any(Number));
    expect(failure(await getAssignment(admin, assignment.id))).toEqual({ status: 404, error: "assignment_not_found" });
    expect(failure(await deleteAssignment(admin, assignment.id))).toEqual({ status: 404, error: "assignment_not_found" });
  });

  it("404 assignment_not_found for an unknown or another school's assignment, which stays", async () => {
    const { admin } = await schoolWithAdmin();
    const foreign = await insertAssignment((await schoolWithAdmin()).school.id);
    expect(failure(await deleteAssignment(admin, unknownId()))).toEqual({ status: 404, error: "assignment_not_found" });
    expect(failure(await deleteAssignment(admin, foreign.id))).toEqual({ status: 404, error: "assignment_not_found" });
    expect((await assignmentRow(foreign.id)).deletedAt).toBeNull();
    expect(failure(await deleteAssignment(admin, "bad-id"))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("403 permission_denied for a curator without can_manage_courses", async () => {
    const { school } = await schoolWithAdmin();
    const assignment = await insertAssignment(school.id);
    expect(failure(await deleteAssignment(await signedIn(school, { role: "curator" }), assignment.id))).toEqual({ status: 403, error: "permission_denied" });
    expect((await deleteAssignment(await signedIn(school, curatorWith({ can_manage_courses: true })), assignment.id)).status).toBe(204);
  });
});
