import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../src/core/lib/clock";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, assignIndividualCurator, createGroup, curatorWith, signedIn } from "../../helpers/users";
import { insertSubmission } from "../assignments/helpers";
import {
  assignmentCourse,
  createDraft,
  draftOf,
  getSubmission,
  history,
  lessonWindow,
  reopen,
  review,
  setSubmission,
  submissionSchool,
  submit,
  worksheet,
} from "./helpers";

/**
 * GET /assignments/:id/submissions by role: managers of students get one row per student (the
 * latest attempt) within their scope, with the worksheet fields; everyone else their own latest.
 * The history, the restricted curator's reach, and the schedule's first-attempt rule.
 */

async function named(userId: string, firstName: string, lastName: string) {
  await db().update(schema.users).set({ firstName, lastName }).where(eq(schema.users.id, userId));
}

/** Three students: one the curator's individually, one through a group, one nobody's. */
async function classroom() {
  const { school, admin, student: alice, assignment } = await submissionSchool({ maxAttempts: null });
  const bob = await signedIn(school, { role: "student" });
  const carol = await signedIn(school, { role: "student" });
  await named(alice.id, "Alice", "Adams");
  await named(bob.id, "Bob", "Brown");
  await named(carol.id, "Carol", "Clark");
  const restricted = await signedIn(school, curatorWith({ can_manage_students: true }));
  const privileged = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
  const reviewerless = await signedIn(school, curatorWith({ can_manage_groups: true }));
  await assignIndividualCurator(alice.id, restricted.id);
  const group = await createGroup(school.id);
  await addMember(group, bob.id);
  await addGroupCurator(group, restricted.id);

  const t0 = Date.now() - 10_000;
  const aliceFirst = await insertSubmission(school.id, assignment.id, alice.id, { attempt: 1, status: "rejected" });
  const aliceSecond = await insertSubmission(school.id, assignment.id, alice.id, { attempt: 2, status: "draft" });
  const bobs = await insertSubmission(school.id, assignment.id, bob.id, { attempt: 1, status: "submitted" });
  const carols = await insertSubmission(school.id, assignment.id, carol.id, { attempt: 1, status: "accepted", scoreHundredths: 9_000 });
  await setSubmission(aliceFirst, { updatedAt: t0 });
  await setSubmission(carols, { updatedAt: t0 + 1_000 });
  await setSubmission(aliceSecond, { updatedAt: t0 + 2_000 });
  await setSubmission(bobs, { updatedAt: t0 + 3_000 });
  return { school, admin, alice, bob, carol, restricted, privileged, reviewerless, assignment, ids: { aliceFirst, aliceSecond, bobs, carols } };
}

const rowsOf = (res: { body: any }) => (res.body.data.submissions as { id: string }[]).map((row) => row.id);

describe("the worksheet", () => {
  it("managers: one row per student (the latest attempt) with who, attempt_count and late, latest activity first", async () => {
    const { admin, privileged, alice, bob, carol, assignment, ids } = await classroom();
    for (const manager of [admin, privileged]) {
      const res = await worksheet(manager, assignment.id);
      expect(res.status).toBe(200);
      expect(res.body.data.total).toBe(3);
      expect(rowsOf(res)).toEqual([ids.bobs, ids.aliceSecond, ids.carols]);
    }
    const rows = (await worksheet(admin, assignment.id)).body.data.submissions;
    expect(rows[1]).toMatchObject({
      id: ids.aliceSecond,
      student_id: alice.id,
      attempt: 2,
      status: "draft",
      student_email: alice.email,
      student_first_name: "Alice",
      student_last_name: "Adams",
      attempt_count: 2,
      late: false,
      attachments: [],
    });
    expect(rows.map((row: { student_id: string; attempt_count: number }) => [row.student_id, row.attempt_count])).toEqual([
      [bob.id, 1],
      [alice.id, 2],
      [carol.id, 1],
    ]);
    expect(rows[2]).toMatchObject({ status: "accepted", score: "90.00" });
  });

  it("filters by status and pages with limit and offset; the total counts every matching student", async () => {
    const { admin, assignment, ids } = await classroom();
    expect(rowsOf(await worksheet(admin, assignment.id, "?status=submitted"))).toEqual([ids.bobs]);
    // Alice's first attempt is rejected, but her latest is a draft: she is not a rejected row.
    expect((await worksheet(admin, assignment.id, "?status=rejected")).body.data).toEqual({ submissions: [], total: 0 });
    const page = await worksheet(admin, assignment.id, "?limit=1&offset=1");
    expect([rowsOf(page), page.body.data.total]).toEqual([[ids.aliceSecond], 3]);
    expect((await worksheet(admin, assignment.id, "?offset=10")).body.data).toEqual({ submissions: [], total: 3 });
    for (const query of ["?limit=0", "?limit=201", "?offset=-1", "?status=lost"]) {
      expect(failure(await worksheet(admin, assignment.id, query))).toEqual({ status: 400, error: "invalid_params" });
    }
  });

  it("a restricted curator's worksheet equals their students; review, reopen and reads of anyone else's are 404", async () => {
    const { restricted, carol, assignment, ids } = await classroom();
    const res = await worksheet(restricted, assignment.id);
    expect([rowsOf(res), res.body.data.total]).toEqual([[ids.bobs, ids.aliceSecond], 2]);
    expect(failure(await review(restricted, ids.carols, { status: "rejected" }))).toEqual({ status: 404, error: "submission_not_found" });
    expect(failure(await reopen(restricted, ids.carols))).toEqual({ status: 404, error: "submission_not_found" });
    expect(failure(await getSubmission(restricted, ids.carols))).toEqual({ status: 404, error: "submission_not_found" });
    expect((await history(restricted, assignment.id, `?student_id=${carol.id}`)).body.data).toEqual({ submissions: [] });
    // Their own students' work they review.
    expect((await review(restricted, ids.bobs, { status: "accepted", score: "100" })).body.data.status).toBe("accepted");
    expect((await getSubmission(restricted, ids.aliceSecond)).status).toBe(200);
  });

  it("everyone else: their own latest submission, or nothing", async () => {
    const { school, alice, reviewerless, assignment, ids } = await classroom();
    const own = await worksheet(alice, assignment.id);
    expect([rowsOf(own), own.body.data.total]).toEqual([[ids.aliceSecond], 1]);
    expect(own.body.data.submissions[0]).not.toHaveProperty("student_email");
    const newcomer = await signedIn(school, { role: "student" });
    expect((await worksheet(newcomer, assignment.id)).body.data).toEqual({ submissions: [], total: 0 });
    expect((await worksheet(reviewerless, assignment.id)).body.data).toEqual({ submissions: [], total: 0 });
  });

  it("late: handed in after the student's closing date of the assignment; false for drafts, earlier hand-ins and students without a date", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    const onTime = await signedIn(school, { role: "student" });
    const drafting = await signedIn(school, { role: "student" });
    const unenrolled = await signedIn(school, { role: "student" });
    const tree = await assignmentCourse(school.id, assignment.id, [student.id, onTime.id, drafting.id]);
    const closesAt = Date.now() - DAY_MS;
    await lessonWindow(school.id, tree, { endsAt: closesAt });
    await insertSubmission(school.id, assignment.id, student.id, { status: "submitted" });
    const early = await insertSubmission(school.id, assignment.id, onTime.id, { status: "accepted", scoreHundredths: 100 });
    await setSubmission(early, { submittedAt: closesAt - 1 });
    await insertSubmission(school.id, assignment.id, drafting.id, { status: "draft" });
    await insertSubmission(school.id, assignment.id, unenrolled.id, { status: "submitted" });
    const rows = (await worksheet(admin, assignment.id)).body.data.submissions as { student_id: string; late: boolean }[];
    expect(Object.fromEntries(rows.map((row) => [row.student_id, row.late]))).toEqual({
      [student.id]: true,
      [onTime.id]: false,
      [drafting.id]: false,
      [unenrolled.id]: false,
    });
  });
});

describe("the history", () => {
  it("every attempt of the caller, newest first; a manager names the student; another student's is empty", async () => {
    const { admin, alice, bob, assignment, ids } = await classroom();
    expect(rowsOf(await history(alice, assignment.id))).toEqual([ids.aliceSecond, ids.aliceFirst]);
    expect(rowsOf(await history(admin, assignment.id, `?student_id=${alice.id}`))).toEqual([ids.aliceSecond, ids.aliceFirst]);
    expect(rowsOf(await history(admin, assignment.id))).toEqual([]);
    expect(rowsOf(await history(bob, assignment.id, `?student_id=${alice.id}`))).toEqual([]);
    expect(failure(await history(admin, assignment.id, "?student_id=nope"))).toEqual({ status: 400, error: "invalid_params" });
  });
});

describe("the schedule's first-attempt rule", () => {
  async function closed(window: { startsAt?: number | null; endsAt?: number | null }) {
    const setup = await submissionSchool({ maxAttempts: null });
    const tree = await assignmentCourse(setup.school.id, setup.assignment.id, [setup.student.id]);
    await lessonWindow(setup.school.id, tree, window);
    return setup;
  }

  it("a passed end refuses the first attempt's create and submit, not an attempt after a rejection or a reopened one", async () => {
    const { school, admin, student, assignment } = await closed({ endsAt: Date.now() - DAY_MS });
    expect(failure(await createDraft(student, assignment.id))).toEqual({ status: 403, error: "schedule_window_closed" });
    const first = await insertSubmission(school.id, assignment.id, student.id, { attempt: 1, status: "draft" });
    expect(failure(await submit(student, first))).toEqual({ status: 403, error: "schedule_window_closed" });
    await setSubmission(first, { status: "submitted", submittedAt: Date.now() });
    expect((await reopen(admin, first)).body.data.status).toBe("draft");
    expect((await submit(student, first)).body.data.status).toBe("submitted");
    await review(admin, first, { status: "rejected" });
    const second = await draftOf(student, assignment.id);
    expect(second.attempt).toBe(2);
    expect((await submit(student, second.id)).body.data.status).toBe("submitted");
  });

  it("a start not yet come refuses every attempt", async () => {
    const { school, student, assignment } = await closed({ startsAt: Date.now() + DAY_MS });
    expect(failure(await createDraft(student, assignment.id))).toEqual({ status: 403, error: "schedule_window_closed" });
    await insertSubmission(school.id, assignment.id, student.id, { attempt: 1, status: "rejected" });
    expect(failure(await createDraft(student, assignment.id))).toEqual({ status: 403, error: "schedule_window_closed" });
    const second = await insertSubmission(school.id, assignment.id, student.id, { attempt: 2, status: "draft" });
    expect(failure(await submit(student, second))).toEqual({ status: 403, error: "schedule_window_closed" });
  });

  it("a student who reaches the assignment through no course meets no dates", async () => {
    const { school, assignment } = await closed({ endsAt: Date.now() - DAY_MS });
    const outsider = await signedIn(school, { role: "student" });
    const draft = await draftOf(outsider, assignment.id);
    expect((await submit(outsider, draft.id)).body.data.status).toBe("submitted");
  });
});
