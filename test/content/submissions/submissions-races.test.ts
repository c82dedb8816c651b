import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { db } from "../../helpers/factories";
import { failure, readResponse } from "../../helpers/http";
import { assignIndividualCurator, curatorWith, signedIn, type Member } from "../../helpers/users";
import { FIXTURES } from "../../media/helpers";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { insertSubmission } from "../assignments/helpers";
import { draftOf, submissionRows, submissionSchool } from "./helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * Concurrent writes of one submission, each request held until all have read what they read:
 * creates make one draft, submits hand in once, reviews land one verdict and one push.
 */

const call = (member: Member, db: D1Database, path: string, body?: unknown) =>
  requestWithD1(db, path, { token: member.token, tenant: member.subdomain, ...(body === undefined ? {} : { body }) });

async function postFilesWith(member: Member, d1: D1Database, assignmentId: string) {
  const form = new FormData();
  form.append("attachments", new File([FIXTURES.png], "photo.png", { type: "image/png" }));
  const path = `/api/v1/t/assignments/${assignmentId}/submissions`;
  const response = await app.request(
    `https://api.lms.localhost${path}`,
    { method: "POST", headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain }, body: form },
    envWith(d1),
  );
  return readResponse(response, { method: "POST", path });
}

describe("race: concurrent submission writes", () => {
  it("6 concurrent creates of one student make one draft: one 201, five 200 with the same submission", async () => {
    const { student, assignment } = await submissionSchool();
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /insert into "submissions"/i, parties: 6 });
    const results = await Promise.all(Array.from({ length: 6 }, () => call(student, barrier.db, `/t/assignments/${assignment.id}/submissions`, {})));
    expect(barrier.stats.releases).toEqual([6]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((res) => res.body.data.id)).size).toBe(1);
    expect((await submissionRows(assignment.id)).map((row) => [row.attempt, row.status])).toEqual([[1, "draft"]]);
  });

  it("after a rejection, 4 concurrent creates make one attempt 2", async () => {
    const { school, student, assignment } = await submissionSchool({ maxAttempts: 5 });
    await insertSubmission(school.id, assignment.id, student.id, { attempt: 1, status: "rejected" });
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /insert into "submissions"/i, parties: 4 });
    const results = await Promise.all(Array.from({ length: 4 }, () => call(student, barrier.db, `/t/assignments/${assignment.id}/submissions`, {})));
    expect(barrier.stats.releases).toEqual([4]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 200, 200, 201]);
    expect((await submissionRows(assignment.id)).map((row) => [row.attempt, row.status])).toEqual([
      [1, "rejected"],
      [2, "draft"],
    ]);
  });

  it("3 concurrent multipart creates: one draft keeps its file; the others' files are removed from storage, no asset rows", async () => {
    const { school, student, assignment } = await submissionSchool();
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /insert into "submissions"/i, parties: 3 });
    const results = await Promise.all(Array.from({ length: 3 }, () => postFilesWith(student, barrier.db, assignment.id)));
    expect(barrier.stats.releases).toEqual([3]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 200, 201]);
    const winner = results.find((res) => res.status === 201)!.body.data;
    expect(winner.attachments).toHaveLength(1);
    for (const res of results) expect(res.body.data).toEqual(winner);
    const assets = await db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.tenantId, school.id));
    expect(assets.map((asset) => asset.id)).toEqual([winner.attachments[0].media_asset_id]);
    const objects = (await env.MEDIA.list({ prefix: `tenant/${school.id}/` })).objects.map((object) => object.key);
    expect(objects).toEqual([assets[0]!.objectKey]);
  });

  it("3 concurrent submits hand in once: one 200, two 409 submission_not_draft, one #47 per curator", async () => {
    const { school, student, assignment } = await submissionSchool();
    const curator = await signedIn(school, curatorWith({}));
    await assignIndividualCurator(student.id, curator.id);
    await addPushDevice(school.id, curator.id);
    const draft = await draftOf(student, assignment.id);
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /UPDATE submissions SET status = 'submitted'/, parties: 3 });
    const results = await Promise.all(Array.from({ length: 3 }, () => call(student, barrier.db, `/t/submissions/${draft.id}/submit`)));
    expect(barrier.stats.releases).toEqual([3]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 409, 409]);
    for (const res of results.filter((one) => one.status !== 200)) expect(failure(res)).toEqual({ status: 409, error: "submission_not_draft" });
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "assignment.submitted").map((row) => row.userId)).toEqual([curator.id]);
  });

  it("4 concurrent reviews land one verdict and one push; the others 409 submission_not_submitted", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    const other = await signedIn(school, { role: "admin" });
    await addPushDevice(school.id, student.id);
    const id = await insertSubmission(school.id, assignment.id, student.id, { status: "submitted" });
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /UPDATE submissions SET status = \?/, parties: 4 });
    const bodies = [
      { status: "accepted", score: "90" },
      { status: "rejected", feedback: "No" },
      { status: "accepted", score: "80" },
      { status: "rejected", feedback: "Again" },
    ];
    const results = await Promise.all(bodies.map((body, index) => call(index % 2 === 0 ? admin : other, barrier.db, `/t/submissions/${id}/review`, body)));
    expect(barrier.stats.releases).toEqual([4]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 409, 409, 409]);
    for (const res of results.filter((one) => one.status !== 200)) expect(failure(res)).toEqual({ status: 409, error: "submission_not_submitted" });
    const winner = results.find((res) => res.status === 200)!.body.data;
    const [row] = await submissionRows(assignment.id);
    expect([row!.status, row!.gradedById]).toEqual([winner.status, winner.graded_by_id]);
    const pushes = (await outboxRows(school.id)).filter((one) => one.userId === student.id);
    expect(pushes.map((one) => one.eventCode)).toEqual([`assignment.${winner.status}`]);
  });
});
