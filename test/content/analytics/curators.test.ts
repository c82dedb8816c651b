import { beforeAll, describe, expect, it } from "vitest";
import { insertExam, insertExamAttempt } from "../../helpers/exams";
import { insertQuiz, giveQuizAccess, insertAttempt } from "../../helpers/quizzes";
import { addGroupCurator, addMember, assignIndividualCurator, createGroup, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { insertAssignment } from "../assignments/helpers";
import { assignmentCourse } from "../submissions/helpers";
import { completeBlock, curatorAnalytics, handIn, lessonWindowIn, MARCH, march, person, setLastName } from "./helpers";

/**
 * GET /analytics/curators on a prepared school, March 2025:
 * - Alpha (A) has s1, s2, s7 individually and group G (s2, s3): 4 students, s2 counted once;
 *   Beta (B) has s4 individually and group H (s3, s5, inactive s6): 3 students, s3 shared;
 *   Gamma (C) has none; an inactive curator is never listed.
 * - The assignment closes on March 15 in the default grid, March 20 in G's grid: s1 hands in on
 *   the 10th, s2 (in G) on the 17th, both on time; s4 on the 17th is late; s5 once on time and
 *   once late; s3 only in February. s7 only completed a block in February.
 * - The quiz: s3 submits on the 5th, s5 starts on the 6th without submitting, s4 submitted in
 *   February; s4's exam (whose section is the same quiz) is submitted on the 12th, s1's in April.
 */
describe("GET /analytics/curators: figures", () => {
  let admin: Member;
  let curatorA: Member;
  let curatorC: Member;
  const ids: Record<string, string> = {};
  const trees: Record<string, string> = {};

  beforeAll(async () => {
    const setup = await schoolWithAdmin();
    const school = setup.school;
    admin = setup.admin;
    const t = school.id;
    curatorA = await signedIn(school, { role: "curator", firstName: "Ann" });
    curatorC = await signedIn(school, { role: "curator", firstName: "Cleo" });
    await setLastName(curatorA.id, "Alpha");
    await setLastName(curatorC.id, "Gamma");
    const curatorB = await person(t, "curator", "Bob", "Beta");
    await person(t, "curator", "Ivy", "Inactive", { isActive: false });
    Object.assign(ids, { A: curatorA.id, B: curatorB.id, C: curatorC.id });
    for (const n of [1, 2, 3, 4, 5, 7]) ids[`s${n}`] = (await person(t, "student", `S${n}`, "Student")).id;
    ids.s6 = (await person(t, "student", "S6", "Student", { isActive: false })).id;

    for (const s of ["s1", "s2", "s7"]) await assignIndividualCurator(ids[s]!, ids.A!);
    await assignIndividualCurator(ids.s4!, ids.B!);
    const g = await createGroup(t, { name: "G" });
    const h = await createGroup(t, { name: "H" });
    ids.G = g.id;
    ids.H = h.id;
    await addGroupCurator(g, ids.A!);
    await addGroupCurator(h, ids.B!);
    for (const s of ["s2", "s3"]) await addMember(g, ids[s]!);
    for (const s of ["s3", "s5", "s6"]) await addMember(h, ids[s]!);

    const students = ["s1", "s2", "s3", "s4", "s5", "s6", "s7"].map((s) => ids[s]!);
    const assignment = await insertAssignment(t);
    const work = await assignmentCourse(t, assignment.id, students);
    trees.work = work.courseId;
    trees.workLesson = work.lessonIds[0]!;
    await lessonWindowIn(t, work, march(15));
    await lessonWindowIn(t, work, march(20), g.id);
    await handIn(t, assignment.id, ids.s1!, march(10));
    await handIn(t, assignment.id, ids.s2!, march(17));
    await handIn(t, assignment.id, ids.s4!, march(17));
    await handIn(t, assignment.id, ids.s5!, march(10), { status: "rejected" });
    await handIn(t, assignment.id, ids.s5!, march(16), { attempt: 2 });
    await handIn(t, assignment.id, ids.s3!, Date.UTC(2025, 1, 10));
    await handIn(t, assignment.id, ids.s6!, march(10)); // inactive: never counted
    await completeBlock(t, work, ids.s7!, Date.UTC(2025, 1, 1));
    await completeBlock(t, work, ids.s6!, march(3));

    const quiz = await insertQuiz(t);
    const quizTree = await giveQuizAccess(t, quiz.id, students);
    trees.quiz = quizTree.courseId;
    await insertAttempt(t, quiz.id, ids.s3!, { startedAt: march(5), submittedAt: march(5, 1) });
    await insertAttempt(t, quiz.id, ids.s5!, { status: "in_progress", startedAt: march(6) });
    await insertAttempt(t, quiz.id, ids.s4!, { startedAt: Date.UTC(2025, 1, 20) });
    const exam = await insertExam(t, { sections: [{ quizId: quiz.id }] });
    await insertExamAttempt(t, exam.id, ids.s4!, { startedAt: march(12), sections: [{ sectionId: exam.sectionIds[0]!, quizId: quiz.id }] });
    await insertExamAttempt(t, exam.id, ids.s1!, { startedAt: Date.UTC(2025, 3, 2) });
  });

  const m = (students: number, rate: string | null) => ({ students, rate_pct: rate });
  const row = (key: string, first: string, last: string) => ({ curator_id: ids[key], first_name: first, last_name: last, email: expect.any(String) });

  it("admin: every active curator by last name, each student counted once per curator, the summary over distinct students", async () => {
    const res = await curatorAnalytics(admin, MARCH);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      from: "2025-03-01T00:00:00.000Z",
      to: "2025-03-31T23:59:59.000Z",
      computed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      exam_applicable: true,
      summary: { curators: 3, students: 6, active: m(5, "83.33"), assignments_on_time: m(2, "33.33"), quizzes_completed: m(1, "16.67"), exams_completed: m(1, "16.67") },
      curators: [
        { ...row("A", "Ann", "Alpha"), students: 4, active: m(3, "75.00"), assignments_on_time: m(2, "50.00"), quizzes_completed: m(1, "25.00"), exams_completed: m(0, "0.00") },
        { ...row("B", "Bob", "Beta"), students: 3, active: m(3, "100.00"), assignments_on_time: m(0, "0.00"), quizzes_completed: m(1, "33.33"), exams_completed: m(1, "33.33") },
        { ...row("C", "Cleo", "Gamma"), students: 0, active: m(0, null), assignments_on_time: m(0, null), quizzes_completed: m(0, null), exams_completed: m(0, null) },
      ],
    });
  });

  it("admin: one curator by curator_id; the summary is that curator's", async () => {
    const res = await curatorAnalytics(admin, `${MARCH}&curator_id=${ids.B}`);
    expect(res.body.data.curators.map((r: { curator_id: string }) => r.curator_id)).toEqual([ids.B]);
    expect(res.body.data.summary).toEqual({ curators: 1, students: 3, active: m(3, "100.00"), assignments_on_time: m(0, "0.00"), quizzes_completed: m(1, "33.33"), exams_completed: m(1, "33.33") });
  });

  it("admin: a curator_id that is no active curator of the school gives an empty list and an empty summary", async () => {
    for (const id of [unknownId(), ids.s1!]) {
      const res = await curatorAnalytics(admin, `${MARCH}&curator_id=${id}`);
      expect(res.status).toBe(200);
      expect(res.body.data.curators).toEqual([]);
      expect(res.body.data.summary).toEqual({ curators: 0, students: 0, active: m(0, null), assignments_on_time: m(0, null), quizzes_completed: m(0, null), exams_completed: m(0, null) });
    }
  });

  it("a curator: only their own row, whatever curator_id names; one without students gets null rates", async () => {
    const own = await curatorAnalytics(curatorA, `${MARCH}&curator_id=${ids.B}`);
    expect(own.status).toBe(200);
    expect(own.body.data.curators).toEqual([
      { ...row("A", "Ann", "Alpha"), students: 4, active: m(3, "75.00"), assignments_on_time: m(2, "50.00"), quizzes_completed: m(1, "25.00"), exams_completed: m(0, "0.00") },
    ]);
    expect(own.body.data.summary.curators).toBe(1);
    const empty = await curatorAnalytics(curatorC, MARCH);
    expect(empty.body.data.summary).toEqual({ curators: 1, students: 0, active: m(0, null), assignments_on_time: m(0, null), quizzes_completed: m(0, null), exams_completed: m(0, null) });
  });

  it("a course filter counts that course's activity only and makes exams not applicable", async () => {
    const res = await curatorAnalytics(admin, `${MARCH}&course_id=${trees.quiz}`);
    expect(res.body.data.exam_applicable).toBe(false);
    expect(res.body.data.summary).toEqual({ curators: 3, students: 6, active: m(2, "33.33"), assignments_on_time: m(0, "0.00"), quizzes_completed: m(1, "16.67"), exams_completed: null });
    const [a, b, c] = res.body.data.curators;
    expect([a.active, a.quizzes_completed, a.exams_completed]).toEqual([m(1, "25.00"), m(1, "25.00"), null]);
    expect([b.active, b.quizzes_completed, b.exams_completed]).toEqual([m(2, "66.67"), m(1, "33.33"), null]);
    expect(c.exams_completed).toBeNull();
  });

  it("a lesson filter: the submissions of its assignments decide activity and timeliness", async () => {
    const res = await curatorAnalytics(admin, `${MARCH}&lesson_id=${trees.workLesson}`);
    expect(res.body.data.exam_applicable).toBe(false);
    expect(res.body.data.summary).toEqual({ curators: 3, students: 6, active: m(4, "66.67"), assignments_on_time: m(2, "33.33"), quizzes_completed: m(0, "0.00"), exams_completed: null });
  });

  it("an unknown content id matches no activity", async () => {
    const res = await curatorAnalytics(admin, `${MARCH}&module_id=${unknownId()}`);
    expect(res.body.data.summary).toEqual({ curators: 3, students: 6, active: m(0, "0.00"), assignments_on_time: m(0, "0.00"), quizzes_completed: m(0, "0.00"), exams_completed: null });
  });

  it("a group filter narrows every curator's students to the group's members", async () => {
    const res = await curatorAnalytics(admin, `${MARCH}&group_id=${ids.H}`);
    const students = res.body.data.curators.map((r: { students: number }) => r.students);
    expect(students).toEqual([1, 2, 0]);
    expect(res.body.data.summary).toEqual({ curators: 3, students: 2, active: m(2, "100.00"), assignments_on_time: m(0, "0.00"), quizzes_completed: m(1, "50.00"), exams_completed: m(0, "0.00") });
  });

  it("the window is inclusive at both ends", async () => {
    const at = new Date(march(5, 1)).toISOString();
    const res = await curatorAnalytics(admin, `?from=${at}&to=${at}`);
    expect(res.body.data.summary.quizzes_completed).toEqual(m(1, "16.67"));
    expect(res.body.data.summary.active).toEqual(m(1, "16.67"));
  });
});
