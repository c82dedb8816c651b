import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, type Tree } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";

async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  return { school, admin, student };
}

/** Completion rows as the completion endpoints leave them. */
async function complete(tenantId: string, tree: Tree, enrollmentId: string, studentId: string, blockIds: string[]) {
  const lessonOf = new Map(tree.modules.flatMap((m) => m.lessons.flatMap((l) => l.blocks.map((b) => [b, l.id] as const))));
  for (const blockId of blockIds) {
    await db()
      .insert(schema.blockCompletions)
      .values({
        id: uuidv7(),
        tenantId,
        courseId: tree.courseId,
        lessonId: lessonOf.get(blockId)!,
        blockId,
        studentId,
        enrollmentId,
        source: "manual",
        completedAt: Date.now(),
      });
  }
}

async function hideFromStudent(tenantId: string, lessonId: string) {
  const group = await createGroup(tenantId);
  await db().insert(schema.lessonGroups).values({ tenantId, lessonId, groupId: group.id, createdAt: 1 });
  return group;
}

type Index = { modules: { id: string; lessons: { id: string; passed: boolean; blocks: { id: string; locked: boolean; payload: unknown }[] }[] }[] };

/** Per visible block, in course order: [block id, locked, payload shown]. */
function blockStates(index: Index) {
  return index.modules.flatMap((m) => m.lessons.flatMap((l) => l.blocks.map((b) => [b.id, b.locked, b.payload !== null])));
}

function passedByLesson(index: Index) {
  return Object.fromEntries(index.modules.flatMap((m) => m.lessons.map((l) => [l.id, l.passed])));
}

describe("GET /t/courses/:id/modules (the module index)", () => {
  it("staff: modules in order with lessons_count, lessons and light blocks, total_lessons; nothing locked, no window fields", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { status: "draft", shape: [2, 2, 1] });
    // Deleted rows stay out; a quiz_ref block carries question_count (the quiz's live questions).
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, tree.modules[1]!.lessons[1]!.id));
    await db().update(schema.courseModules).set({ position: 5 }).where(eq(schema.courseModules.id, tree.modules[0]!.id));
    const quizBlock = tree.modules[0]!.lessons[0]!.blocks[0]!;
    const { id: quizId } = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "free_text", deleted: true }, { type: "matching" }] });
    await db().update(schema.blocks).set({ type: "quiz_ref", payload: { quiz_id: quizId }, refId: quizId }).where(eq(schema.blocks.id, quizBlock));

    const res = await as(admin, `/t/courses/${tree.courseId}/modules`);
    expect(res.status).toBe(200);
    const { modules, total_lessons } = res.body.data;
    expect(total_lessons).toBe(3);
    expect(modules.map((m: { id: string; lessons_count: number }) => [m.id, m.lessons_count])).toEqual([
      [tree.modules[1]!.id, 1],
      [tree.modules[0]!.id, 2],
    ]);
    expect(Object.keys(modules[0]).sort()).toEqual(
      ["id", "course_id", "tenant_id", "title", "description", "position", "cover_image_id", "cover_image_url", "lessons_count", "lessons", "created_at", "updated_at"].sort(),
    );
    expect(modules[1].lessons[0].blocks).toEqual([{ id: quizBlock, type: "quiz_ref", position: 0, payload: { quiz_id: quizId }, locked: false, question_count: 2 }]);
    expect(modules[1].lessons[1].blocks[0]).toEqual({
      id: tree.modules[0]!.lessons[1]!.blocks[0],
      type: "text",
      position: 0,
      payload: { html: "<p>Block 1.2.1</p>" },
      locked: false,
    });
    expect(modules[0].lessons[0]).not.toHaveProperty("locked");
  });

  it("a student sees published courses only: draft, deleted, foreign and unknown are course_not_found", async () => {
    const { school, admin, student } = await setup();
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree((await setup()).school.id);
    for (const courseId of [draft.courseId, deleted.courseId, foreign.courseId, unknownId()]) {
      expect(failure(await as(student, `/t/courses/${courseId}/modules`))).toEqual({ status: 404, error: "course_not_found" });
    }
    expect(failure(await as(admin, `/t/courses/${foreign.courseId}/modules`))).toEqual({ status: 404, error: "course_not_found" });
    expect(failure(await as(admin, `/t/courses/${deleted.courseId}/modules`))).toEqual({ status: 404, error: "course_not_found" });
    expect((await as(admin, `/t/courses/${draft.courseId}/modules`)).status).toBe(200);
    expect(failure(await as(student, "/t/courses/nope/modules"))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("a student without an active enrollment reads the outline with every payload null and locked; window fields on modules and lessons", async () => {
    const { school, student } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 2] });
    const res = await as(student, `/t/courses/${tree.courseId}/modules`);
    expect(res.status).toBe(200);
    const window = { locked: false, locked_reason: null, available_from: null, available_until: null };
    expect(res.body.data.modules[0]).toMatchObject(window);
    expect(res.body.data.modules[0].lessons[0]).toMatchObject(window);
    expect(blockStates(res.body.data)).toEqual(tree.blockIds.map((id) => [id, true, false]));

    // A removed enrollment is no enrollment.
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, enrollmentId));
    expect(blockStates((await as(student, `/t/courses/${tree.courseId}/modules`)).body.data)).toEqual(tree.blockIds.map((id) => [id, true, false]));
  });

  it("an enrolled student of a free-order course sees every payload; passed follows the completions of every block of a non-empty lesson", async () => {
    const { school, student } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [1, 3, 2] });
    const empty = tree.modules[0]!.lessons[2]!;
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.lessonId, empty.id));
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    const [l0, l1] = tree.modules[0]!.lessons as [Tree["modules"][0]["lessons"][0], Tree["modules"][0]["lessons"][0]];
    await complete(school.id, tree, enrollmentId, student.id, [...l0.blocks, l1.blocks[1]!]);
    const res = await as(student, `/t/courses/${tree.courseId}/modules`);
    expect(blockStates(res.body.data)).toEqual([...l0.blocks, ...l1.blocks].map((id) => [id, false, true]));
    expect(passedByLesson(res.body.data)).toEqual({ [l0.id]: true, [l1.id]: false, [empty.id]: false });
  });

  it("sequential_required: locks follow the student's completions in course order over the visible lessons; staff see nothing locked", async () => {
    const { school, admin, student } = await setup();
    const tree = await insertCourseTree(school.id, { sequential: true, shape: [2, 2, 2] });
    const b = tree.blockIds;
    // Lesson 1.2 (blocks 2, 3) is for another group: it neither shows nor holds the student back.
    await hideFromStudent(school.id, tree.modules[0]!.lessons[1]!.id);
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    // Block 6 completed out of order (say, before the course became sequential): it stays locked.
    await complete(school.id, tree, enrollmentId, student.id, [b[0]!, b[1]!, b[4]!, b[6]!]);

    const res = await as(student, `/t/courses/${tree.courseId}/modules`);
    expect(res.body.data.total_lessons).toBe(3);
    expect(blockStates(res.body.data)).toEqual([
      [b[0], false, true],
      [b[1], false, true],
      [b[4], false, true],
      [b[5], false, true],
      [b[6], true, false],
      [b[7], true, false],
    ]);
    expect(passedByLesson(res.body.data)).toEqual({
      [tree.modules[0]!.lessons[0]!.id]: true,
      [tree.modules[1]!.lessons[0]!.id]: false,
      [tree.modules[1]!.lessons[1]!.id]: false,
    });

    // GET /modules/:id of the second module agrees with the whole index (earlier modules count).
    const second = await as(student, `/t/modules/${tree.modules[1]!.id}`);
    expect(blockStates({ modules: [second.body.data] })).toEqual(blockStates(res.body.data).slice(2));
    const lessons = await as(student, `/t/modules/${tree.modules[1]!.id}/lessons`);
    expect(blockStates({ modules: [{ id: "", lessons: lessons.body.data.lessons }] })).toEqual(blockStates(res.body.data).slice(2));

    // Completing block 5 opens block 6 and, since 6 is complete, block 7.
    await complete(school.id, tree, enrollmentId, student.id, [b[5]!]);
    const after = await as(student, `/t/courses/${tree.courseId}/modules`);
    expect(blockStates(after.body.data).map(([, locked]) => locked)).toEqual([false, false, false, false, false, false]);
    expect(passedByLesson(after.body.data)[tree.modules[1]!.lessons[0]!.id]).toBe(true);

    for (const staff of [admin, await signedIn(school, curatorWith({}))]) {
      const view = await as(staff, `/t/courses/${tree.courseId}/modules`);
      expect(view.body.data.total_lessons).toBe(4);
      expect(blockStates(view.body.data)).toEqual(b.map((id) => [id, false, true]));
      expect(Object.values(passedByLesson(view.body.data))).toEqual([false, false, false, false]);
    }
  });

  it("a member of a lesson's group sees the lesson; a deleted group no longer hides it", async () => {
    const { school, student } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 1] });
    const group = await hideFromStudent(school.id, tree.lessonIds[1]!);
    const lessonIds = async () =>
      (await as(student, `/t/courses/${tree.courseId}/modules`)).body.data.modules[0].lessons.map((l: { id: string }) => l.id);
    expect(await lessonIds()).toEqual([tree.lessonIds[0]]);
    await addMember(group, student.id);
    expect(await lessonIds()).toEqual(tree.lessonIds);

    const other = await hideFromStudent(school.id, tree.lessonIds[0]!);
    expect(await lessonIds()).toEqual([tree.lessonIds[1]]);
    await db().update(schema.groups).set({ deletedAt: Date.now() }).where(eq(schema.groups.id, other.id));
    expect(await lessonIds()).toEqual(tree.lessonIds);
  });
});
