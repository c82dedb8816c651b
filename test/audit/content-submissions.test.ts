import { describe, expect, it } from "vitest";
import { failure } from "../helpers/http";
import { curatorWith, signedIn } from "../helpers/users";
import { reopen, review, submissionSchool, submitted } from "../content/submissions/helpers";
import { auditRows, byCall } from "./content-helpers";

describe("audit entries of submission reviews and reopens", () => {
  it("an acceptance records status, score and feedback before and after, with the actor and request id", async () => {
    const { school, admin, student, assignment } = await submissionSchool({ maxScoreHundredths: 10_000 });
    const id = await submitted(student, assignment.id);
    const res = await review(admin, id, { status: "accepted", score: "87.5", feedback: "Well argued" });
    expect(res.status).toBe(200);
    expect(await auditRows(school.id)).toEqual([
      {
        ...(await byCall(admin, res)),
        action: "submission.reviewed",
        target_type: "submission",
        target_id: id,
        summary: "Submission accepted",
        changes: { status: ["submitted", "accepted"], score: [null, "87.50"], feedback: [null, "Well argued"] },
      },
    ]);
  });

  it("a rejection that keeps the feedback records only what changed; a second review is 409 and writes nothing", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    const id = await submitted(student, assignment.id);
    const res = await review(admin, id, { status: "rejected" });
    expect(res.status).toBe(200);
    expect(failure(await review(admin, id, { status: "rejected" }))).toEqual({ status: 409, error: "submission_not_submitted" });
    const rows = await auditRows(school.id);
    expect(rows.map((row) => [row.action, row.changes])).toEqual([["submission.reviewed", { status: ["submitted", "rejected"] }]]);
  });

  it("a reopen records the status and the score cleared; refused reopens write nothing", async () => {
    const { school, admin, student, assignment } = await submissionSchool({ maxScoreHundredths: 10_000 });
    const id = await submitted(student, assignment.id);
    expect((await review(admin, id, { status: "rejected", score: "12", feedback: "Redo part 2" })).status).toBe(200);
    const res = await reopen(admin, id);
    expect(res.status).toBe(200);
    expect(failure(await reopen(admin, id))).toEqual({ status: 409, error: "submission_not_submitted" });
    const rows = await auditRows(school.id, "submission.reopened");
    expect(rows).toEqual([
      {
        ...(await byCall(admin, res)),
        action: "submission.reopened",
        target_type: "submission",
        target_id: id,
        summary: "Submission sent back to draft",
        changes: { status: ["rejected", "draft"], score: ["12.00", null] },
      },
    ]);
  });

  it("refused requests write nothing: validation, no permission, another school's submission, an accepted one reopened", async () => {
    const { school, admin, student, assignment } = await submissionSchool({ maxScoreHundredths: 1_000 });
    const id = await submitted(student, assignment.id);
    const other = await submissionSchool();
    const viewer = await signedIn(school, { role: "curator", ...curatorWith({ can_manage_students: false }) });
    expect(failure(await review(admin, id, { status: "accepted" }))).toEqual({ status: 400, error: "invalid_score" });
    expect(failure(await review(admin, id, { status: "accepted", score: "11" }))).toEqual({ status: 400, error: "invalid_score" });
    expect((await review(viewer, id, { status: "rejected" })).status).toBe(403);
    expect(failure(await review(other.admin, id, { status: "rejected" }))).toEqual({ status: 404, error: "submission_not_found" });
    expect(failure(await reopen(other.admin, id))).toEqual({ status: 404, error: "submission_not_found" });
    expect(await auditRows(school.id)).toEqual([]);
    expect(await auditRows(other.school.id)).toEqual([]);
    expect((await review(admin, id, { status: "accepted", score: "10" })).status).toBe(200);
    expect(failure(await reopen(admin, id))).toEqual({ status: 409, error: "submission_already_accepted" });
    expect((await auditRows(school.id)).map((row) => row.action)).toEqual(["submission.reviewed"]);
  });
});
