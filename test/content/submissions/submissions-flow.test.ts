import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { ISO, MEDIA_LINK } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, signedIn, unknownId } from "../../helpers/users";
import { storedImage } from "../../media/helpers";
import { insertAssignment, insertSubmission } from "../assignments/helpers";
import {
  createDraft,
  draftOf,
  getSubmission,
  history,
  patchSubmission,
  reopen,
  review,
  submissionFileRows,
  submissionRows,
  submissionSchool,
  submit,
} from "./helpers";

/** A student's own asset: confirmed, uploaded by them. */
async function ownAsset(tenantId: string, userId: string, options: Parameters<typeof storedImage>[1] = {}) {
  const id = await storedImage(tenantId, options);
  await db().update(schema.mediaAssets).set({ uploadedByUserId: userId }).where(eq(schema.mediaAssets.id, id));
  return id;
}

describe("a submission from draft to review", () => {
  it("creates the draft (201), answers it again unchanged (200), edits, submits, and reads it back", async () => {
    const { school, student, assignment } = await submissionSchool({ maxScoreHundredths: 5_050 });
    const first = await ownAsset(school.id, student.id);
    const second = await ownAsset(school.id, student.id);
    const created = await createDraft(student, assignment.id, { attachment_ids: [second, first, second] });
    expect(created.status).toBe(201);
    const draft = created.body.data;
    expect(draft).toEqual({
      id: expect.any(String),
      assignment_id: assignment.id,
      student_id: student.id,
      attempt: 1,
      status: "draft",
      text: null,
      score: null,
      feedback: null,
      graded_by_id: null,
      graded_at: null,
      submitted_at: null,
      attachments: [
        { media_asset_id: second, position: 0, filename: "picture.png", size: expect.any(Number), kind: "image", mime: "image/png", url: expect.stringMatching(MEDIA_LINK(second)) },
        { media_asset_id: first, position: 1, filename: "picture.png", size: expect.any(Number), kind: "image", mime: "image/png", url: expect.stringMatching(MEDIA_LINK(first)) },
      ],
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });

    // Again, with other files: the draft unchanged, nothing attached.
    const again = await createDraft(student, assignment.id, { attachment_ids: [first] });
    expect(again.status).toBe(200);
    // The same draft; its attachments' links are signed afresh on every read, so only their shape is compared.
    const freshLinks = (data: typeof draft) => ({
      ...data,
      attachments: data.attachments.map((file: { media_asset_id: string }) => ({ ...file, url: expect.stringMatching(MEDIA_LINK(file.media_asset_id)) })),
    });
    expect(again.body.data).toEqual(freshLinks(draft));
    expect(await submissionRows(assignment.id)).toHaveLength(1);

    const patched = await patchSubmission(student, draft.id, { text: '<p onclick="x()">My essay<script>alert(1)</script></p>', attachment_ids: [first] });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ text: "<p>My essay</p>", status: "draft" });
    expect(patched.body.data.attachments.map((file: { media_asset_id: string }) => file.media_asset_id)).toEqual([first]);
    expect((await patchSubmission(student, draft.id, {})).body.data.text).toBe("<p>My essay</p>");
    expect((await patchSubmission(student, draft.id, { text: null })).body.data).toMatchObject({ text: null, attachments: [{ media_asset_id: first }] });
    expect((await patchSubmission(student, draft.id, { attachment_ids: [] })).body.data.attachments).toEqual([]);
    expect(await submissionFileRows(draft.id)).toEqual([]);

    const handedIn = await submit(student, draft.id);
    expect(handedIn.status).toBe(200);
    expect(handedIn.body.data).toMatchObject({ status: "submitted", submitted_at: expect.stringMatching(ISO), attempt: 1 });
    expect((await getSubmission(student, draft.id)).body.data).toEqual(handedIn.body.data);
    expect((await createDraft(student, assignment.id)).body.data).toEqual(handedIn.body.data);
    expect((await history(student, assignment.id)).body.data).toEqual({ submissions: [handedIn.body.data] });
  });

  it("an empty draft may be submitted", async () => {
    const { student, assignment } = await submissionSchool();
    const draft = await draftOf(student, assignment.id);
    expect((await submit(student, draft.id)).body.data).toMatchObject({ status: "submitted", text: null, attachments: [] });
  });

  it("attempts after a rejection: a new draft each time up to max_attempts, the rejected ones kept; then 409 max_attempts_reached", async () => {
    const { school, admin, student, assignment } = await submissionSchool({ maxAttempts: 3 });
    const ids: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const draft = await draftOf(student, assignment.id);
      expect(draft.attempt).toBe(attempt);
      ids.push(draft.id);
      await submit(student, draft.id);
      const verdict = await review(admin, draft.id, { status: "rejected", feedback: `Try again ${attempt}` });
      expect(verdict.body.data).toMatchObject({ status: "rejected", feedback: `Try again ${attempt}`, graded_by_id: admin.id, graded_at: expect.stringMatching(ISO) });
    }
    expect(failure(await createDraft(student, assignment.id))).toEqual({ status: 409, error: "max_attempts_reached" });
    expect((await submissionRows(assignment.id)).map((row) => [row.attempt, row.status])).toEqual([
      [1, "rejected"],
      [2, "rejected"],
      [3, "rejected"],
    ]);
    const attempts = (await history(student, assignment.id)).body.data.submissions;
    expect(attempts.map((row: { id: string }) => row.id)).toEqual([...ids].reverse());

    // Unlimited attempts go on.
    const open = await insertAssignment(school.id, { maxAttempts: null });
    for (let attempt = 1; attempt <= 4; attempt++) {
      const draft = await draftOf(student, open.id);
      expect(draft.attempt).toBe(attempt);
      await submit(student, draft.id);
      await review(admin, draft.id, { status: "rejected" });
    }
  });

  it("review accepts with a score and rejects with or without one; reopen clears the verdict and keeps the feedback", async () => {
    const { admin, student, assignment } = await submissionSchool({ maxScoreHundredths: 5_050 });
    const draft = await draftOf(student, assignment.id);
    await submit(student, draft.id);
    const rejected = await review(admin, draft.id, { status: "rejected", score: 12.5, feedback: "Line one\nLine two" });
    expect(rejected.body.data).toMatchObject({ status: "rejected", score: "12.50", feedback: "Line one\nLine two" });
    const reopened = await reopen(admin, draft.id);
    expect(reopened.status).toBe(200);
    expect(reopened.body.data).toMatchObject({ status: "draft", attempt: 1, score: null, graded_by_id: null, graded_at: null, submitted_at: null, feedback: "Line one\nLine two" });
    await submit(student, draft.id);
    const accepted = await review(admin, draft.id, { status: "accepted", score: "50.5" });
    expect(accepted.body.data).toMatchObject({ status: "accepted", score: "50.50", feedback: "Line one\nLine two", graded_by_id: admin.id });
    expect((await getSubmission(admin, draft.id)).body.data).toEqual(accepted.body.data);
  });
});

describe("the submission state machine", () => {
  type Operation = "patch" | "submit" | "accept" | "reject" | "reopen";
  const table: [schema.SubmissionStatus, Operation, string][] = [
    ["draft", "patch", "draft"],
    ["draft", "submit", "submitted"],
    ["draft", "accept", "409 submission_not_submitted"],
    ["draft", "reject", "409 submission_not_submitted"],
    ["draft", "reopen", "409 submission_not_submitted"],
    ["submitted", "patch", "409 submission_not_draft"],
    ["submitted", "submit", "409 submission_not_draft"],
    ["submitted", "accept", "accepted"],
    ["submitted", "reject", "rejected"],
    ["submitted", "reopen", "draft"],
    ["accepted", "patch", "409 submission_not_draft"],
    ["accepted", "submit", "409 submission_not_draft"],
    ["accepted", "accept", "409 submission_not_submitted"],
    ["accepted", "reject", "409 submission_not_submitted"],
    ["accepted", "reopen", "409 submission_already_accepted"],
    ["rejected", "patch", "409 submission_not_draft"],
    ["rejected", "submit", "409 submission_not_draft"],
    ["rejected", "accept", "409 submission_not_submitted"],
    ["rejected", "reject", "409 submission_not_submitted"],
    ["rejected", "reopen", "draft"],
  ];

  it("allows exactly the transitions of the table and refuses the others with their identifiers", async () => {
    const { school, admin, student } = await submissionSchool();
    const outcomes: string[] = [];
    for (const [from, operation] of table) {
      const assignment = await insertAssignment(school.id);
      const id = await insertSubmission(school.id, assignment.id, student.id, { status: from, scoreHundredths: from === "accepted" ? 5_000 : null });
      const res =
        operation === "patch"
          ? await patchSubmission(student, id, { text: "<p>x</p>" })
          : operation === "submit"
            ? await submit(student, id)
            : operation === "reopen"
              ? await reopen(admin, id)
              : await review(admin, id, { status: operation === "accept" ? "accepted" : "rejected", score: "10" });
      const outcome = res.status === 200 ? (res.body.data.status as string) : `${failure(res).status} ${failure(res).error}`;
      outcomes.push(`${from} ${operation} → ${outcome}`);
      const [row] = await submissionRows(assignment.id);
      // A refusal changes nothing.
      if (res.status !== 200) expect(row!.status).toBe(from);
      else expect(row!.status).toBe(outcome);
    }
    expect(outcomes).toEqual(table.map(([from, operation, expected]) => `${from} ${operation} → ${expected}`));
  });

  it("reopen refuses an attempt a later one replaced (409 submission_not_submitted)", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    const old = await insertSubmission(school.id, assignment.id, student.id, { attempt: 1, status: "rejected" });
    await insertSubmission(school.id, assignment.id, student.id, { attempt: 2, status: "submitted" });
    expect(failure(await reopen(admin, old))).toEqual({ status: 409, error: "submission_not_submitted" });
  });
});

describe("submission failures", () => {
  it("404 assignment_not_found: unknown, deleted, or another school's assignment", async () => {
    const { student } = await submissionSchool();
    const deleted = await insertAssignment(student.tenantId, { deleted: true });
    const other = await submissionSchool();
    for (const id of [unknownId(), deleted.id, other.assignment.id]) {
      expect(failure(await createDraft(student, id))).toEqual({ status: 404, error: "assignment_not_found" });
    }
  });

  it("403 student_not_in_targeted_group: a student outside every targeted group; members of one create", async () => {
    const { school, student } = await submissionSchool();
    const group = await createGroup(school.id);
    const member = await signedIn(school, { role: "student" });
    await addMember(group, member.id);
    const targeted = await insertAssignment(school.id, { groups: [group.id] });
    expect(failure(await createDraft(student, targeted.id))).toEqual({ status: 403, error: "student_not_in_targeted_group" });
    expect((await createDraft(member, targeted.id)).status).toBe(201);
  });

  it("400 attachment_not_in_tenant on create and PATCH: another student's, a pending, or another school's asset; nothing written", async () => {
    const { school, student, assignment } = await submissionSchool();
    const classmate = await signedIn(school, { role: "student" });
    const other = await submissionSchool();
    const bad = [
      await ownAsset(school.id, classmate.id),
      await ownAsset(school.id, student.id, { status: "pending" }),
      await ownAsset(other.school.id, student.id),
      unknownId(),
    ];
    const good = await ownAsset(school.id, student.id);
    for (const id of bad) {
      expect(failure(await createDraft(student, assignment.id, { attachment_ids: [good, id] }))).toEqual({ status: 400, error: "attachment_not_in_tenant" });
    }
    expect(await submissionRows(assignment.id)).toEqual([]);
    const draft = await draftOf(student, assignment.id, { attachment_ids: [good] });
    for (const id of bad) {
      expect(failure(await patchSubmission(student, draft.id, { text: "<p>changed</p>", attachment_ids: [id] }))).toEqual({ status: 400, error: "attachment_not_in_tenant" });
    }
    const [row] = await submissionRows(assignment.id);
    expect(row!.text).toBeNull();
    expect((await submissionFileRows(draft.id)).map((file) => file.mediaAssetId)).toEqual([good]);
  });

  it("400 invalid_request_body for malformed bodies", async () => {
    const { school, student, assignment } = await submissionSchool();
    const id = await ownAsset(school.id, student.id);
    for (const body of [{ attachment_ids: "x" }, { attachment_ids: ["not-a-uuid"] }, { attachment_ids: Array(21).fill(id) }, { text: "x" }]) {
      expect(failure(await createDraft(student, assignment.id, body))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    const draft = await draftOf(student, assignment.id);
    for (const body of [{ text: 5 }, { text: "x".repeat(20_001) }, { attachment_ids: [1] }, { status: "submitted" }]) {
      expect(failure(await patchSubmission(student, draft.id, body))).toEqual({ status: 400, error: "invalid_request_body" });
    }
  });

  it("404 submission_not_found: PATCH and submit by anyone but the owner, reads outside the caller's reach", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    const classmate = await signedIn(school, { role: "student" });
    const draft = await draftOf(student, assignment.id);
    for (const member of [classmate, admin]) {
      expect(failure(await patchSubmission(member, draft.id, { text: "<p>x</p>" }))).toEqual({ status: 404, error: "submission_not_found" });
      expect(failure(await submit(member, draft.id))).toEqual({ status: 404, error: "submission_not_found" });
    }
    expect(failure(await getSubmission(classmate, draft.id))).toEqual({ status: 404, error: "submission_not_found" });
    expect(failure(await getSubmission(student, unknownId()))).toEqual({ status: 404, error: "submission_not_found" });
    const curator = await signedIn(school, { role: "curator", permissions: { can_manage_students: false, can_manage_groups: true } });
    expect(failure(await getSubmission(curator, draft.id))).toEqual({ status: 404, error: "submission_not_found" });
    const other = await submissionSchool();
    expect(failure(await getSubmission(other.admin, draft.id))).toEqual({ status: 404, error: "submission_not_found" });
    expect(failure(await review(other.admin, draft.id, { status: "rejected" }))).toEqual({ status: 404, error: "submission_not_found" });
    expect(failure(await reopen(other.admin, draft.id))).toEqual({ status: 404, error: "submission_not_found" });
    expect((await getSubmission(admin, draft.id)).status).toBe(200);
  });

  it("400 invalid_score: not a decimal, below 0, above max_score, missing on accept; a valid score on reject is stored", async () => {
    const { admin, student, assignment } = await submissionSchool({ maxScoreHundredths: 2_000 });
    const draft = await draftOf(student, assignment.id);
    await submit(student, draft.id);
    const bad: unknown[] = [
      { status: "accepted" },
      { status: "accepted", score: null },
      { status: "accepted", score: "abc" },
      { status: "accepted", score: "-1" },
      { status: "accepted", score: "20.01" },
      { status: "accepted", score: 1.234 },
      { status: "accepted", score: true },
      { status: "rejected", score: "21" },
    ];
    for (const body of bad) expect({ body, ...failure(await review(admin, draft.id, body)) }).toEqual({ body, status: 400, error: "invalid_score" });
    for (const body of [{ status: "maybe" }, {}, { status: "accepted", score: "1", feedback: "x".repeat(10_001) }]) {
      expect(failure(await review(admin, draft.id, body))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    expect((await review(admin, draft.id, { status: "accepted", score: "20" })).body.data.score).toBe("20.00");
  });

  it("403 for callers without can_manage_students on review and reopen", async () => {
    const { school, student, assignment } = await submissionSchool();
    const draft = await draftOf(student, assignment.id);
    const curator = await signedIn(school, { role: "curator", permissions: { can_manage_students: false } });
    for (const member of [student, curator]) {
      expect(failure(await review(member, draft.id, { status: "rejected" }))).toEqual({ status: 403, error: "forbidden" });
      expect(failure(await reopen(member, draft.id))).toEqual({ status: 403, error: "forbidden" });
    }
    expect(failure(await as(curator, `/t/assignments/${assignment.id}/submissions`, { method: "POST" }))).toEqual({ status: 403, error: "forbidden" });
  });
});
