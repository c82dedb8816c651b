import { describe, expect, it } from "vitest";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { getAssignment, insertAssignment, insertSubmission, listAssignments } from "./helpers";

/** A school with assignments created a minute apart (newest last in `titles`), an admin and a student. */
async function schoolWithAssignments(titles: string[]) {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const base = Date.now() - titles.length * 60_000;
  const ids: string[] = [];
  for (const [index, title] of titles.entries()) ids.push((await insertAssignment(school.id, { title, createdAt: base + index * 60_000 })).id);
  return { school, admin, student, ids };
}

const titlesOf = (res: { body: any }) => (res.body.data.assignments as { title: string }[]).map((row) => row.title);

describe("GET /t/assignments", () => {
  it("newest first, paged with the total; list rows carry empty attachments; staff rows have no my_submission_* keys", async () => {
    const { admin, ids } = await schoolWithAssignments(["A", "B", "C", "D", "E"]);
    await insertAssignment((await schoolWithAdmin()).school.id, { title: "Foreign" });
    const first = await listAssignments(admin, "?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ total: 5, page: 1, limit: 2 });
    expect(titlesOf(first)).toEqual(["E", "D"]);
    expect(first.body.data.assignments[0]).toEqual({
      id: ids[4],
      title: "E",
      instructions: "",
      max_score: "100.00",
      max_attempts: null,
      screenshot_protection_enabled: false,
      attachments: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(titlesOf(await listAssignments(admin, "?limit=2&page=3"))).toEqual(["A"]);
    const beyond = await listAssignments(admin, "?limit=2&page=9");
    expect(beyond.body.data).toEqual({ assignments: [], total: 5, page: 9, limit: 2 });
    const defaults = await listAssignments(admin);
    expect(defaults.body.data).toMatchObject({ total: 5, page: 1, limit: 20 });
    expect(titlesOf(defaults)).toEqual(["E", "D", "C", "B", "A"]);
  });

  it("q: title contains, case-insensitive, wildcards literal; deleted assignments never listed", async () => {
    const { school, admin } = await schoolWithAssignments(["Essay on rivers", "River map", "Lab report", "100% done"]);
    await insertAssignment(school.id, { title: "Rivers deleted", deleted: true });
    const rivers = await listAssignments(admin, "?q=RIVER");
    expect(titlesOf(rivers)).toEqual(["River map", "Essay on rivers"]);
    expect(rivers.body.data.total).toBe(2);
    expect(titlesOf(await listAssignments(admin, "?q=%25"))).toEqual(["100% done"]);
    expect((await listAssignments(admin, "?q=nothing")).body.data).toEqual({ assignments: [], total: 0, page: 1, limit: 20 });
  });

  it("400 invalid_params for a page or limit out of range", async () => {
    const { admin } = await schoolWithAssignments([]);
    for (const query of ["?page=0", "?page=-1", "?page=x", "?limit=0", "?limit=101", "?limit=1.5", `?q=${"x".repeat(101)}`]) {
      expect({ query, ...failure(await listAssignments(admin, query)) }).toEqual({ query, status: 400, error: "invalid_params" });
    }
  });

  it("students: assignments open to all or targeting one of their live groups, with their latest attempt's status and score", async () => {
    const { school, admin, student, ids } = await schoolWithAssignments(["Open", "Rejected then draft", "Accepted"]);
    const mine = await createGroup(school.id);
    const other = await createGroup(school.id);
    const gone = await createGroup(school.id, { deleted: true });
    await addMember(mine, student.id);
    await addMember(gone, student.id);
    const base = Date.now();
    const targeted = await insertAssignment(school.id, { title: "Mine", groups: [mine.id, other.id], createdAt: base + 1 });
    await insertAssignment(school.id, { title: "Others", groups: [other.id], createdAt: base + 2 });
    // A target naming only a deleted group opens the assignment to everyone, as for lessons.
    await insertAssignment(school.id, { title: "Deleted group", groups: [gone.id], createdAt: base + 3 });
    await insertSubmission(school.id, ids[1]!, student.id, { attempt: 1, status: "rejected", scoreHundredths: 2000 });
    await insertSubmission(school.id, ids[1]!, student.id, { attempt: 2, status: "draft" });
    await insertSubmission(school.id, ids[2]!, student.id, { attempt: 1, status: "accepted", scoreHundredths: 8550 });
    const someoneElse = await signedIn(school, { role: "student" });
    await insertSubmission(school.id, ids[0]!, someoneElse.id, { attempt: 1, status: "accepted", scoreHundredths: 100 });

    const res = await listAssignments(student);
    expect(res.body.data.total).toBe(5);
    const rows = (res.body.data.assignments as Record<string, unknown>[]).map((row) => ({ title: row.title, status: row.my_submission_status, score: row.my_submission_score }));
    expect(rows).toEqual([
      { title: "Deleted group", status: null, score: null },
      { title: "Mine", status: null, score: null },
      { title: "Accepted", status: "accepted", score: "85.50" },
      { title: "Rejected then draft", status: "draft", score: null },
      { title: "Open", status: null, score: null },
    ]);
    expect((await listAssignments(admin)).body.data.total).toBe(6);
    const detail = await getAssignment(student, ids[2]!);
    expect(detail.body.data).toMatchObject({ id: ids[2], my_submission_status: "accepted", my_submission_score: "85.50", attachments: [] });
    expect((await getAssignment(student, targeted.id)).body.data).toMatchObject({ my_submission_status: null, my_submission_score: null });
    expect(Object.keys((await getAssignment(admin, ids[2]!)).body.data)).not.toContain("my_submission_status");
  });
});

describe("GET /t/assignments/:id", () => {
  it("staff read any live assignment; a student only one that targets them (else 404 assignment_not_found)", async () => {
    const { school, admin, student } = await schoolWithAssignments([]);
    const group = await createGroup(school.id);
    const closed = await insertAssignment(school.id, { title: "Closed", groups: [group.id] });
    expect((await getAssignment(admin, closed.id)).body.data).toMatchObject({ id: closed.id, title: "Closed" });
    const curator = await signedIn(school, { role: "curator" });
    expect((await getAssignment(curator, closed.id)).status).toBe(200);
    expect(failure(await getAssignment(student, closed.id))).toEqual({ status: 404, error: "assignment_not_found" });
    await addMember(group, student.id);
    expect((await getAssignment(student, closed.id)).body.data).toMatchObject({ id: closed.id, my_submission_status: null });
  });

  it("404 assignment_not_found for an unknown, deleted or another school's assignment; 400 invalid_id_format", async () => {
    const { school, admin } = await schoolWithAssignments([]);
    const deleted = await insertAssignment(school.id, { deleted: true });
    const foreign = await insertAssignment((await schoolWithAdmin()).school.id);
    for (const id of [unknownId(), deleted.id, foreign.id]) expect(failure(await getAssignment(admin, id))).toEqual({ status: 404, error: "assignment_not_found" });
    expect(failure(await getAssignment(admin, "123"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("GET /t/assignments/progress", () => {
  it("accessible = live assignments open to the student; completed = those with a submission beyond draft; percent to two decimals", async () => {
    const { school, student, ids } = await schoolWithAssignments(["One", "Two", "Three"]);
    const other = await createGroup(school.id);
    const foreignTarget = await insertAssignment(school.id, { groups: [other.id] });
    await insertAssignment(school.id, { deleted: true });
    const progress = () => as(student, "/t/assignments/progress");
    expect((await progress()).body.data).toEqual({ completed: 0, accessible: 3, percent: "0.00" });
    await insertSubmission(school.id, ids[0]!, student.id, { status: "draft" });
    expect((await progress()).body.data).toEqual({ completed: 0, accessible: 3, percent: "0.00" });
    await insertSubmission(school.id, ids[1]!, student.id, { attempt: 1, status: "rejected" });
    await insertSubmission(school.id, ids[1]!, student.id, { attempt: 2, status: "draft" });
    await insertSubmission(school.id, ids[2]!, student.id, { status: "submitted" });
    await insertSubmission(school.id, foreignTarget.id, student.id, { status: "accepted" });
    expect((await progress()).body.data).toEqual({ completed: 2, accessible: 3, percent: "66.67" });
    const fresh = await signedIn(school, { role: "student" });
    await addMember(other, fresh.id);
    expect((await as(fresh, "/t/assignments/progress")).body.data).toEqual({ completed: 0, accessible: 4, percent: "0.00" });
    const empty = await schoolWithAdmin();
    const lonely = await signedIn(empty.school, { role: "student" });
    expect((await as(lonely, "/t/assignments/progress")).body.data).toEqual({ completed: 0, accessible: 0, percent: null });
  });

  it("403 student_only for staff", async () => {
    const { school, admin } = await schoolWithAssignments([]);
    for (const member of [admin, await signedIn(school, curatorWith({ can_manage_courses: true, can_manage_students: true }))]) {
      expect(failure(await as(member, "/t/assignments/progress"))).toEqual({ status: 403, error: "student_only" });
    }
  });
});
