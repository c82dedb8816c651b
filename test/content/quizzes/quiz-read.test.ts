import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { roundTripD1 } from "../../helpers/d1-counter";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { giveQuizAccess, insertQuiz, insertQuizCourse } from "../../helpers/quizzes";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** GET /t/quizzes/:id: the staff view, the student's safe view, references, who reaches what. */

const EVERY_TYPE = [
  { type: "single" as const, answers: [{ text: "Yes", isCorrect: true }, { text: "No" }] },
  { type: "multiple" as const, scoringMode: "partial" as const, answers: [{ text: "A", isCorrect: true }, { text: "B", isCorrect: true }, { text: "C" }] },
  { type: "free_text" as const, correctText: ["Tashkent"] },
  { type: "matching" as const, matches: [{ left: "1", right: "one" }, { left: "2", right: "two" }, { right: "three" }] },
];

const read = (member: Member, id: string) => as(member, `/t/quizzes/${id}`);

async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const quiz = await insertQuiz(school.id, { title: "Capitals", passingScore: 70, retakePolicy: "last", defaultScoringMode: "partial", screenshotProtectionEnabled: true, questions: EVERY_TYPE });
  return { school, admin, student, quiz };
}

describe("GET /t/quizzes/:id for staff", () => {
  it("answers the full view: settings, questions with the answers, course references in order, publication", async () => {
    const { school, admin, quiz } = await setup();
    // Two courses name the quiz: "Beta" (published, two lessons) and "Alpha" (draft); a deleted block and lesson do not count.
    const beta = await insertQuizCourse(school.id, quiz.id, { title: "Beta", shape: [2, 1, 1] });
    const alpha = await insertQuizCourse(school.id, quiz.id, { title: "Alpha", status: "draft", shape: [1, 2, 1] });
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, alpha.blockIds[1]!));
    const gone = await insertQuizCourse(school.id, quiz.id, { title: "Gone" });
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, gone.lessonIds[0]!));

    const res = await read(admin, quiz.id);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({
      id: quiz.id,
      tenant_id: school.id,
      title: "Capitals",
      passing_score: 70,
      retake_policy: "last",
      default_scoring_mode: "partial",
      screenshot_protection_enabled: true,
      published_via_course: true,
      published_via_exam: false,
      exam_refs: [],
    });
    expect(Object.keys(data).sort()).toEqual(
      [
        "id", "tenant_id", "title", "description", "max_attempts", "time_limit_seconds", "passing_score", "retake_policy", "default_scoring_mode",
        "screenshot_protection_enabled", "questions_per_attempt", "shuffle_questions", "shuffle_answers", "questions", "course_refs", "published_via_course", "published_via_exam", "exam_refs", "created_at", "updated_at",
      ].sort(),
    );
    const ref = (tree: typeof beta, course: string, status: string, m: number, l: number) => ({
      course_id: tree.courseId,
      course_title: course,
      course_status: status,
      module_id: tree.modules[m]!.id,
      module_title: `Module ${m + 1}`,
      lesson_id: tree.modules[m]!.lessons[l]!.id,
      lesson_title: `Lesson ${m + 1}.${l + 1}`,
    });
    expect(data.course_refs).toEqual([ref(alpha, "Alpha", "draft", 0, 0), ref(beta, "Beta", "published", 0, 0), ref(beta, "Beta", "published", 1, 0)]);
    expect(data.questions.map((q: { id: string; type: string }) => [q.id, q.type])).toEqual(quiz.questions.map((q) => [q.id, q.type]));
    expect(data.questions[0]).toMatchObject({ quiz_id: quiz.id, points: "1.00", scoring_mode: null, answers: [{ text: "Yes", is_correct: true }, { text: "No", is_correct: false }] });
    expect(data.questions[2]).toMatchObject({ correct_text: ["Tashkent"] });
    expect(data.questions[3].matches).toHaveLength(3);
  });

  it("only a published course publishes the quiz; a curator of any kind reads it", async () => {
    const { school, quiz } = await setup();
    await insertQuizCourse(school.id, quiz.id, { status: "draft" });
    const curator = await signedIn(school, curatorWith({}));
    const res = await read(curator, quiz.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ published_via_course: false, default_scoring_mode: "partial" });
    expect(res.body.data.course_refs).toHaveLength(1);
    expect(res.body.data.questions[0].answers[0].is_correct).toBe(true);
  });

  it("400 invalid_id_format; 404 quiz_not_found for unknown, deleted and another school's quizzes", async () => {
    const { school, admin } = await setup();
    const other = await schoolWithAdmin();
    const foreign = await insertQuiz(other.school.id);
    const deleted = await insertQuiz(school.id, { deleted: true });
    expect(failure(await read(admin, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
    for (const id of [unknownId(), deleted.id, foreign.id]) expect(failure(await read(admin, id))).toEqual({ status: 404, error: "quiz_not_found" });
  });
});

describe("GET /t/quizzes/:id for students", () => {
  it("an enrolled student reads the safe view: no answers, no scoring metadata, tokens for matching rights", async () => {
    const { school, student, quiz } = await setup();
    const tree = await giveQuizAccess(school.id, quiz.id, [student.id], { title: "Geography" });
    const res = await read(student, quiz.id);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).not.toHaveProperty("default_scoring_mode");
    expect(data).toMatchObject({ passing_score: 70, retake_policy: "last", screenshot_protection_enabled: true, published_via_course: true, exam_refs: [] });
    expect(data.course_refs).toEqual([
      {
        course_id: tree.courseId,
        course_title: "Geography",
        course_status: "published",
        module_id: tree.modules[0]!.id,
        module_title: "Module 1",
        lesson_id: tree.lessonIds[0],
        lesson_title: "Lesson 1.1",
      },
    ]);
    const [single, multiple, freeText, matching] = data.questions;
    expect(Object.keys(single).sort()).toEqual(["answers", "id", "image_url", "points", "position", "prompt", "type"]);
    expect(single.answers).toEqual([
      { id: quiz.questions[0]!.answerIds[0], text: "Yes", image_url: null, position: 0 },
      { id: quiz.questions[0]!.answerIds[1], text: "No", image_url: null, position: 1 },
    ]);
    expect(multiple).not.toHaveProperty("scoring_mode");
    expect(Object.keys(freeText).sort()).toEqual(["id", "image_url", "points", "position", "prompt", "type"]);
    expect(matching.match_lefts).toEqual([
      { id: quiz.questions[3]!.matchIds[0], text: "1" },
      { id: quiz.questions[3]!.matchIds[1], text: "2" },
    ]);
    expect(matching.match_rights.map((r: { text: string }) => r.text).sort()).toEqual(["one", "three", "two"]);
    for (const right of matching.match_rights) expect(quiz.questions[3]!.matchIds).not.toContain(right.id);
    expect(JSON.stringify(data)).not.toMatch(/is_correct|correct_text|scoring_mode|Tashkent/);
  });

  it("course_refs lists only the lessons that give the student the quiz", async () => {
    const { school, student, quiz } = await setup();
    const open = await giveQuizAccess(school.id, quiz.id, [student.id], { shape: [1, 2, 1] });
    const group = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: open.lessonIds[1]!, groupId: group.id, createdAt: Date.now() });
    await insertQuizCourse(school.id, quiz.id); // published, not enrolled
    await insertQuizCourse(school.id, quiz.id, { status: "draft" });
    const res = await read(student, quiz.id);
    expect(res.body.data.course_refs.map((r: { lesson_id: string }) => r.lesson_id)).toEqual([open.lessonIds[0]]);
  });

  it("404 quiz_not_found unless a live quiz_ref block in a visible lesson of a published course with an active enrollment names the quiz", async () => {
    const { school, student, quiz } = await setup();
    const notFound = { status: 404, error: "quiz_not_found" };
    // Not referenced anywhere; referenced by a course the student is not enrolled in.
    expect(failure(await read(student, quiz.id))).toEqual(notFound);
    const tree = await insertQuizCourse(school.id, quiz.id);
    expect(failure(await read(student, quiz.id))).toEqual(notFound);
    // Enrolled: readable.
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    expect((await read(student, quiz.id)).status).toBe(200);
    // A lesson restricted to a group the student is not in hides it; joining the group shows it again.
    const group = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: tree.lessonIds[0]!, groupId: group.id, createdAt: Date.now() });
    expect(failure(await read(student, quiz.id))).toEqual(notFound);
    await addMember(group, student.id);
    expect((await read(student, quiz.id)).status).toBe(200);
    // A draft course, a removed enrollment, a deleted block each close it.
    await db().update(schema.courses).set({ status: "draft" }).where(eq(schema.courses.id, tree.courseId));
    expect(failure(await read(student, quiz.id))).toEqual(notFound);
    await db().update(schema.courses).set({ status: "published" }).where(eq(schema.courses.id, tree.courseId));
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, enrollmentId));
    expect(failure(await read(student, quiz.id))).toEqual(notFound);
    await db().update(schema.enrollments).set({ removedAt: null }).where(eq(schema.enrollments.id, enrollmentId));
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, tree.blockIds[0]!));
    expect(failure(await read(student, quiz.id))).toEqual(notFound);
    // A deleted quiz is gone even with access.
    const other = await insertQuiz(school.id, { deleted: true });
    await giveQuizAccess(school.id, other.id, [student.id]);
    expect(failure(await read(student, other.id))).toEqual(notFound);
    // Another school's quiz, with access there, is not this school's.
    const elsewhere = await schoolWithAdmin();
    const foreign = await insertQuiz(elsewhere.school.id);
    await giveQuizAccess(elsewhere.school.id, foreign.id, [student.id]);
    expect(failure(await read(student, foreign.id))).toEqual(notFound);
  });

  it("a text block of an enrolled course gives nothing: only quiz_ref blocks reach a quiz", async () => {
    const { school, student, quiz } = await setup();
    const tree = await insertCourseTree(school.id, { refId: quiz.id });
    await insertEnrollment(school.id, tree.courseId, student.id);
    expect(failure(await read(student, quiz.id))).toEqual({ status: 404, error: "quiz_not_found" });
  });
});

describe("round trips of GET /t/quizzes/:id", () => {
  async function counted(member: Member, path: string) {
    const counter = roundTripD1(await schoolD1(member.tenantId));
    const res = await app.request(
      `https://api.lms.localhost/api/v1${path}`,
      { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
      envWith(counter.db),
    );
    return { status: res.status, stats: counter.stats };
  }

  it("the guard's query and one batch, for staff and students, whatever the number of questions and references", async () => {
    const { school, admin, student } = await setup();
    const big = await insertQuiz(school.id, { questions: Array.from({ length: 30 }, (_, i) => EVERY_TYPE[i % 4]!) });
    await giveQuizAccess(school.id, big.id, [student.id], { shape: [3, 3, 2] });
    for (const member of [admin, student]) {
      expect({ role: member.role, ...(await counted(member, `/t/quizzes/${big.id}`)) }).toEqual({ role: member.role, status: 200, stats: { batches: 1, statements: 1 } });
    }
    expect(await counted(student, `/t/quizzes/${unknownId()}`)).toEqual({ status: 404, stats: { batches: 1, statements: 1 } });
  });
});
