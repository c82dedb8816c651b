import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { signedIn, unknownId } from "../../helpers/users";
import { storedImage } from "../../media/helpers";
import { insertAssignment, insertSubmission } from "../assignments/helpers";
import { createDraft, draftOf, patchSubmission, setSubmission, submissionFileRows, submissionRows, submissionSchool, submit } from "./helpers";

/**
 * Create-or-return by the student's latest attempt: a draft (reopened or not), a submitted or an
 * accepted attempt is answered unchanged, files sent with the request left alone; a rejection opens
 * the next attempt below max_attempts, and at it refuses. PATCH's limits on the files it names.
 */

async function ownAsset(tenantId: string, userId: string, options: Parameters<typeof storedImage>[1] = {}) {
  const id = await storedImage(tenantId, options);
  await db().update(schema.mediaAssets).set({ uploadedByUserId: userId }).where(eq(schema.mediaAssets.id, id));
  return id;
}

type Latest = { attempt: number; status: schema.SubmissionStatus; reopened?: boolean }[];

describe("POST /assignments/:id/submissions by the latest attempt", () => {
  const table: [string, number | null, Latest, string][] = [
    ["nothing yet", 3, [], "201 attempt 1"],
    ["a draft", 3, [{ attempt: 1, status: "draft" }], "200 attempt 1 draft"],
    ["a reopened draft", 3, [{ attempt: 1, status: "draft", reopened: true }], "200 attempt 1 draft"],
    ["a submitted attempt", 3, [{ attempt: 1, status: "submitted" }], "200 attempt 1 submitted"],
    ["an accepted attempt", 1, [{ attempt: 1, status: "accepted" }], "200 attempt 1 accepted"],
    ["a rejected attempt below the limit", 3, [{ attempt: 1, status: "rejected" }], "201 attempt 2"],
    ["a draft after a rejection", 3, [{ attempt: 1, status: "rejected" }, { attempt: 2, status: "draft" }], "200 attempt 2 draft"],
    ["a submitted attempt after a rejection", 2, [{ attempt: 1, status: "rejected" }, { attempt: 2, status: "submitted" }], "200 attempt 2 submitted"],
    ["the only attempt rejected", 1, [{ attempt: 1, status: "rejected" }], "409 max_attempts_reached"],
    ["the last allowed attempt rejected", 2, [{ attempt: 1, status: "rejected" }, { attempt: 2, status: "rejected" }], "409 max_attempts_reached"],
    ["a rejection, attempts unlimited", null, [{ attempt: 1, status: "rejected" }, { attempt: 2, status: "rejected" }], "201 attempt 3"],
  ];

  it("answers each latest state as decided, with files sent left alone unless a new draft is made", async () => {
    const { school, student } = await submissionSchool();
    const outcomes: string[] = [];
    for (const [name, maxAttempts, rows] of table) {
      const assignment = await insertAssignment(school.id, { maxAttempts });
      for (const row of rows) {
        const id = await insertSubmission(school.id, assignment.id, student.id, { attempt: row.attempt, status: row.status, scoreHundredths: row.status === "accepted" ? 5_000 : null });
        if (row.reopened) await setSubmission(id, { reopenedAt: Date.now() });
      }
      const before = await submissionRows(assignment.id);
      const asset = await ownAsset(school.id, student.id);
      const res = await createDraft(student, assignment.id, { attachment_ids: [asset] });
      const after = await submissionRows(assignment.id);
      if (res.status === 201) {
        outcomes.push(`${name}: 201 attempt ${res.body.data.attempt}`);
        expect(res.body.data).toMatchObject({ status: "draft", submitted_at: null, attachments: [{ media_asset_id: asset, position: 0 }] });
        // The rejected attempts are kept as they were.
        expect(after.slice(0, before.length)).toEqual(before);
        expect(after).toHaveLength(before.length + 1);
      } else if (res.status === 200) {
        const latest = before[before.length - 1]!;
        outcomes.push(`${name}: 200 attempt ${res.body.data.attempt} ${res.body.data.status}`);
        expect(res.body.data).toMatchObject({ id: latest.id, attachments: [] });
        expect(after).toEqual(before);
        expect(await submissionFileRows(latest.id)).toEqual([]);
      } else {
        outcomes.push(`${name}: ${failure(res).status} ${failure(res).error}`);
        expect(after).toEqual(before);
      }
    }
    expect(outcomes).toEqual(table.map(([name, , , expected]) => `${name}: ${expected}`));
  });

  it("403 forbidden for staff: creating a submission is a student's act", async () => {
    const { school, admin, assignment } = await submissionSchool();
    const curator = await signedIn(school, { role: "curator", permissions: { can_manage_students: true } });
    for (const member of [admin, curator]) expect(failure(await createDraft(member, assignment.id))).toEqual({ status: 403, error: "forbidden" });
    expect(await submissionRows(assignment.id)).toEqual([]);
  });

  it("duplicate ids are collapsed, the first position kept", async () => {
    const { school, student, assignment } = await submissionSchool();
    const [a, b, c] = [await ownAsset(school.id, student.id), await ownAsset(school.id, student.id), await ownAsset(school.id, student.id)];
    const draft = await draftOf(student, assignment.id, { attachment_ids: [b, a, b, c, a] });
    expect(draft.attachments.map((file: { media_asset_id: string; position: number }) => [file.media_asset_id, file.position])).toEqual([
      [b, 0],
      [a, 1],
      [c, 2],
    ]);
  });
});

describe("PATCH /submissions/:id and the files it names", () => {
  it("replaces the files in the order given; a deleted asset is refused (400 attachment_not_in_tenant) with nothing changed", async () => {
    const { school, student, assignment } = await submissionSchool();
    const [a, b, gone] = [await ownAsset(school.id, student.id), await ownAsset(school.id, student.id), await ownAsset(school.id, student.id)];
    await db().update(schema.mediaAssets).set({ deletedAt: Date.now() }).where(eq(schema.mediaAssets.id, gone));
    const draft = await draftOf(student, assignment.id, { attachment_ids: [a] });
    const replaced = await patchSubmission(student, draft.id, { attachment_ids: [b, a] });
    expect(replaced.body.data.attachments.map((file: { media_asset_id: string }) => file.media_asset_id)).toEqual([b, a]);
    expect(failure(await patchSubmission(student, draft.id, { text: "<p>new</p>", attachment_ids: [a, gone] }))).toEqual({ status: 400, error: "attachment_not_in_tenant" });
    expect(failure(await createDraft(student, (await insertAssignment(school.id)).id, { attachment_ids: [gone] }))).toEqual({ status: 400, error: "attachment_not_in_tenant" });
    expect((await submissionFileRows(draft.id)).map((row) => row.mediaAssetId)).toEqual([b, a]);
    expect((await submissionRows(assignment.id))[0]!.text).toBeNull();
  });

  it("400 invalid_request_body for more than 20 ids or a text over 20000 characters; 20 ids are taken", async () => {
    const { school, student, assignment } = await submissionSchool();
    const ids: string[] = [];
    for (let index = 0; index < 21; index++) ids.push(await ownAsset(school.id, student.id));
    const draft = await draftOf(student, assignment.id);
    expect(failure(await patchSubmission(student, draft.id, { attachment_ids: ids }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await patchSubmission(student, draft.id, { text: `<p>${"x".repeat(20_001)}</p>` }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(await submissionFileRows(draft.id)).toEqual([]);
    const twenty = await patchSubmission(student, draft.id, { attachment_ids: ids.slice(0, 20) });
    expect(twenty.status).toBe(200);
    expect(twenty.body.data.attachments).toHaveLength(20);
  });

  it("404 submission_not_found: an unknown id, another school's student; 409 submission_not_draft for the owner's handed-in attempt", async () => {
    const { student, assignment } = await submissionSchool();
    const other = await submissionSchool();
    const draft = await draftOf(student, assignment.id);
    for (const [member, id] of [
      [student, unknownId()],
      [other.student, draft.id],
    ] as const) {
      expect(failure(await patchSubmission(member, id, { text: "<p>x</p>" }))).toEqual({ status: 404, error: "submission_not_found" });
      expect(failure(await submit(member, id))).toEqual({ status: 404, error: "submission_not_found" });
    }
    expect((await submit(student, draft.id)).status).toBe(200);
    // An empty body changes nothing, and still says the attempt is no longer a draft.
    expect(failure(await patchSubmission(student, draft.id, {}))).toEqual({ status: 409, error: "submission_not_draft" });
    expect(failure(await submit(student, draft.id))).toEqual({ status: 409, error: "submission_not_draft" });
  });
});
