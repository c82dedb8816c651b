import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { countingD1, roundTripD1 } from "../../helpers/d1-counter";
import { db } from "../../helpers/factories";
import { assignIndividualCurator, curatorWith, signedIn, type Member } from "../../helpers/users";
import { FIXTURES, storedImage } from "../../media/helpers";
import { addPushDevice } from "../../notifications/helpers";
import { assignmentCourse, draftOf, submissionSchool } from "./helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * What the student's submission endpoints ask of D1: a create, a PATCH and a submit issue the same
 * statements and round trips whatever the number of files; the submit's completion of the
 * assignment's blocks and its #47 are part of its one write batch.
 */

async function measured(member: Member, path: string, init: { method?: string; body?: unknown; form?: FormData } = {}) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const counting = countingD1(trips.db);
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const body = init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const response = await app.request(`https://api.lms.localhost/api/v1${path}`, { method: init.method ?? "POST", headers, body }, envWith(counting.db));
  const json = (await response.json()) as any;
  return { status: response.status, body: json, statements: counting.counts.prepare, batches: counting.counts.batch, roundTrips: trips.roundTrips() };
}

/** The student's own confirmed assets. */
async function ownAssets(tenantId: string, userId: string, count: number) {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const id = await storedImage(tenantId);
    await db().update(schema.mediaAssets).set({ uploadedByUserId: userId }).where(eq(schema.mediaAssets.id, id));
    ids.push(id);
  }
  return ids;
}

/** A student with a curator (so #47 has a recipient), enrolled in a course holding the assignment. */
async function setup(files: number) {
  const base = await submissionSchool();
  const curator = await signedIn(base.school, curatorWith({}));
  await assignIndividualCurator(base.student.id, curator.id);
  await addPushDevice(base.school.id, curator.id);
  const tree = await assignmentCourse(base.school.id, base.assignment.id, [base.student.id]);
  const ids = await ownAssets(base.school.id, base.student.id, files);
  return { ...base, tree, ids };
}

const shape = (run: { statements: number; batches: number; roundTrips: number }) => ({ statements: run.statements, batches: run.batches, roundTrips: run.roundTrips });

describe("the student's submission writes and D1", () => {
  it("create by ids: the same statements for 20 files as for 1", async () => {
    const one = await setup(1);
    const many = await setup(20);
    const small = await measured(one.student, `/t/assignments/${one.assignment.id}/submissions`, { body: { attachment_ids: one.ids } });
    const large = await measured(many.student, `/t/assignments/${many.assignment.id}/submissions`, { body: { attachment_ids: many.ids } });
    expect([small.status, large.status]).toEqual([201, 201]);
    expect(large.body.data.attachments).toHaveLength(20);
    expect(shape(large)).toEqual(shape(small));
    // The guard's read, the create's reads, the conditional write with its read-back.
    expect(large.roundTrips).toBe(3);
  });

  it("create with files: the same statements and round trips for 5 files as for 1", async () => {
    const formOf = (count: number) => {
      const form = new FormData();
      for (let index = 0; index < count; index++) form.append("attachments", new File([FIXTURES.png], `photo-${index}.png`, { type: "image/png" }));
      return form;
    };
    const one = await setup(0);
    const five = await setup(0);
    const small = await measured(one.student, `/t/assignments/${one.assignment.id}/submissions`, { form: formOf(1) });
    const large = await measured(five.student, `/t/assignments/${five.assignment.id}/submissions`, { form: formOf(5) });
    expect([small.status, large.status]).toEqual([201, 201]);
    expect(large.body.data.attachments).toHaveLength(5);
    expect(shape(large)).toEqual(shape(small));
  });

  it("PATCH: the same statements for 20 files as for 1, in one write batch", async () => {
    const one = await setup(1);
    const many = await setup(20);
    const oneDraft = await draftOf(one.student, one.assignment.id);
    const manyDraft = await draftOf(many.student, many.assignment.id);
    const small = await measured(one.student, `/t/submissions/${oneDraft.id}`, { method: "PATCH", body: { text: "<p>x</p>", attachment_ids: one.ids } });
    const large = await measured(many.student, `/t/submissions/${manyDraft.id}`, { method: "PATCH", body: { text: "<p>x</p>", attachment_ids: many.ids } });
    expect([small.status, large.status]).toEqual([200, 200]);
    expect(large.body.data.attachments).toHaveLength(20);
    expect(shape(large)).toEqual(shape(small));
    // The guard's read and the write batch with its read-back.
    expect(large.roundTrips).toBe(2);
  });

  it("submit: the same statements for a draft of 20 files as for an empty one; completion and #47 in its one write batch", async () => {
    const none = await setup(0);
    const many = await setup(20);
    const emptyDraft = await draftOf(none.student, none.assignment.id);
    const fullDraft = await draftOf(many.student, many.assignment.id, { attachment_ids: many.ids });
    const small = await measured(none.student, `/t/submissions/${emptyDraft.id}/submit`);
    const large = await measured(many.student, `/t/submissions/${fullDraft.id}/submit`);
    expect([small.status, large.status]).toEqual([200, 200]);
    expect(large.body.data).toMatchObject({ status: "submitted" });
    expect(large.body.data.attachments).toHaveLength(20);
    expect(shape(large)).toEqual(shape(small));
    const completions = await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, many.student.id));
    expect(completions.map((row) => [row.blockId, row.source])).toEqual([[many.tree.blockIds[0], "assignment"]]);
    const outbox = await db().select().from(schema.notificationOutbox).where(eq(schema.notificationOutbox.tenantId, many.school.id));
    expect(outbox.map((row) => row.eventCode).sort()).toEqual(["assignment.submitted", "course.student_completed"]);
    // The guard's read, the submit's reads, its write batch.
    expect(large.roundTrips).toBe(3);
  });
});
