import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment, ISO } from "../../helpers/courses";
import { addMember, as, createGroup, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { storedImage } from "../../media/helpers";
import { days, putGroupWindow, putWindow } from "./helpers";

/** A published 2×2×1 course, its admin and an enrolled student. */
async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const tree = await insertCourseTree(school.id, { shape: [2, 2, 1] });
  await insertEnrollment(school.id, tree.courseId, student.id);
  return { school, admin, student, tree };
}

type Status = { locked?: boolean; locked_reason?: string | null; available_from?: string | null; available_until?: string | null };
const status = (node: Status) => ({ locked: node.locked, locked_reason: node.locked_reason, available_from: node.available_from, available_until: node.available_until });
const OPEN = { locked: false, locked_reason: null, available_from: null, available_until: null };

/** The student's module index as `{moduleId: status, lessonId: status}` plus whether each lesson's blocks show payloads. */
async function indexOf(member: Member, courseId: string) {
  const res = await as(member, `/t/courses/${courseId}/modules`);
  expect(res.status).toBe(200);
  const statuses: Record<string, ReturnType<typeof status>> = {};
  const payloads: Record<string, boolean[]> = {};
  for (const module of res.body.data.modules) {
    statuses[module.id] = status(module);
    for (const lesson of module.lessons) {
      statuses[lesson.id] = status(lesson);
      payloads[lesson.id] = lesson.blocks.map((block: { payload: unknown; locked: boolean }) => block.payload !== null && !block.locked);
    }
  }
  return { statuses, payloads };
}

const courseStatus = async (member: Member, courseId: string) => status((await as(member, `/t/courses/${courseId}`)).body.data);

describe("course windows for students", () => {
  it("a future start on a published course closes it for its enrolled students (course_not_started); allow_before_start opens it", async () => {
    const { admin, student, tree } = await setup();
    expect(await courseStatus(student, tree.courseId)).toEqual(OPEN);
    const start = days(3);
    await putWindow(admin, "courses", tree.courseId, { starts_at: start, ends_at: days(30) });
    const closed = await courseStatus(student, tree.courseId);
    expect(closed).toEqual({ locked: true, locked_reason: "course_not_started", available_from: start, available_until: expect.stringMatching(ISO) });
    // The list agrees with the detail.
    const list = await as(student, "/t/courses");
    expect(status(list.body.data.courses.find((course: { id: string }) => course.id === tree.courseId))).toEqual(closed);

    await putWindow(admin, "courses", tree.courseId, { starts_at: start, allow_before_start: true });
    expect(await courseStatus(student, tree.courseId)).toEqual({ locked: false, locked_reason: null, available_from: start, available_until: null });
  });

  it("a past end closes it (course_ended) unless allow_after_end; staff see no window fields", async () => {
    const { admin, student, tree } = await setup();
    const end = days(-1);
    await putWindow(admin, "courses", tree.courseId, { ends_at: end });
    expect(await courseStatus(student, tree.courseId)).toEqual({ locked: true, locked_reason: "course_ended", available_from: null, available_until: end });
    await putWindow(admin, "courses", tree.courseId, { ends_at: end, allow_after_end: true });
    expect((await courseStatus(student, tree.courseId)).locked).toBe(false);

    const detail = (await as(admin, `/t/courses/${tree.courseId}`)).body.data;
    for (const field of ["locked", "locked_reason", "available_from", "available_until"]) expect(detail).not.toHaveProperty(field);
  });
});

describe("nested availability in the module index and lesson reads", () => {
  it("a closed course closes its modules and lessons; a closed module closes its lessons; a lesson closes by its own window", async () => {
    const { admin, student, tree } = await setup();
    const [m1, m2] = tree.modules;
    const [l11, l12] = m1!.lessons;
    const [l21, l22] = m2!.lessons;
    const ended = days(-2);
    await putWindow(admin, "modules", m1!.id, { ends_at: ended });
    await putWindow(admin, "modules", m2!.id, { starts_at: days(-10), ends_at: days(10) });
    const lessonStart = days(2);
    await putWindow(admin, "lessons", l22!.id, { starts_at: lessonStart });

    const open = await indexOf(student, tree.courseId);
    expect(open.statuses[m1!.id]).toEqual({ locked: true, locked_reason: "course_ended", available_from: null, available_until: ended });
    expect(open.statuses[l11!.id]).toEqual({ locked: true, locked_reason: "course_ended", available_from: null, available_until: null });
    expect(open.statuses[l12!.id]!.locked).toBe(true);
    expect(open.statuses[m2!.id]).toMatchObject({ locked: false, locked_reason: null, available_from: expect.stringMatching(ISO) });
    expect(open.statuses[l21!.id]).toEqual(OPEN);
    expect(open.statuses[l22!.id]).toEqual({ locked: true, locked_reason: "course_not_started", available_from: lessonStart, available_until: null });
    expect(open.payloads).toEqual({ [l11!.id]: [false], [l12!.id]: [false], [l21!.id]: [true], [l22!.id]: [false] });

    // The course not started yet: everything closed by it, with the course's reason.
    await putWindow(admin, "courses", tree.courseId, { starts_at: days(1) });
    const closed = await indexOf(student, tree.courseId);
    for (const id of [m1!.id, m2!.id, l11!.id, l12!.id, l21!.id, l22!.id]) expect(closed.statuses[id]).toMatchObject({ locked: true, locked_reason: "course_not_started" });
    expect(Object.values(closed.payloads).flat()).toEqual([false, false, false, false]);

    // GET /modules/:id agrees with the index.
    const module = (await as(student, `/t/modules/${m2!.id}`)).body.data;
    expect(status(module)).toEqual(closed.statuses[m2!.id]);
  });

  it("a date-closed lesson's blocks lose payload and link in GET /lessons/:id, /lessons/:id/blocks and /blocks/:id; an open one keeps them", async () => {
    const { school, admin, student, tree } = await setup();
    const lessonId = tree.modules[0]!.lessons[0]!.id;
    const imageId = await storedImage(school.id);
    const image = await as(admin, `/t/lessons/${lessonId}/blocks`, { body: { type: "image", payload: { media_asset_id: imageId } } });
    expect(image.status).toBe(201);
    const imageBlock = image.body.data.id as string;

    const before = await as(student, `/t/lessons/${lessonId}`);
    expect(before.body.data.blocks.map((block: { payload: unknown; url: unknown }) => [block.payload !== null, block.url !== null])).toEqual([
      [true, false],
      [true, true],
    ]);

    await putWindow(admin, "modules", tree.modules[0]!.id, { ends_at: days(-1) });
    const lesson = await as(student, `/t/lessons/${lessonId}`);
    expect(lesson.status).toBe(200);
    expect(status(lesson.body.data)).toEqual({ locked: true, locked_reason: "course_ended", available_from: null, available_until: null });
    expect(lesson.body.data.blocks.map((block: { payload: unknown; url: unknown; locked: boolean }) => [block.payload, block.url, block.locked])).toEqual([
      [null, null, true],
      [null, null, true],
    ]);
    const blocks = await as(student, `/t/lessons/${lessonId}/blocks`);
    expect(blocks.body.data.blocks.every((block: { payload: unknown; url: unknown }) => block.payload === null && block.url === null)).toBe(true);
    const block = await as(student, `/t/blocks/${imageBlock}`);
    expect(block.status).toBe(200);
    expect(block.body.data).toMatchObject({ id: imageBlock, payload: null, url: null, locked: true });

    // Staff bypass: everything open, no window fields.
    const staff = await as(admin, `/t/lessons/${lessonId}`);
    expect(staff.body.data).not.toHaveProperty("locked");
    expect(staff.body.data.blocks.every((block: { payload: unknown }) => block.payload !== null)).toBe(true);
    const staffIndex = (await as(admin, `/t/courses/${tree.courseId}/modules`)).body.data.modules[0];
    expect(staffIndex).not.toHaveProperty("locked");
    expect(staffIndex.lessons[0].blocks.every((b: { payload: unknown; locked: boolean }) => b.payload !== null && !b.locked)).toBe(true);
  });
});

describe("group grids in availability", () => {
  it("a group grid replaces the default grid for its members: nodes it leaves without a window are open", async () => {
    const { school, admin, student, tree } = await setup();
    const outsider = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, outsider.id);
    const group = await createGroup(school.id);
    await addMember(group, student.id);
    const [m1, m2] = tree.modules;
    await putWindow(admin, "courses", tree.courseId, { starts_at: days(5) });
    await putWindow(admin, "modules", m1!.id, { ends_at: days(-1) });
    const groupEnd = days(-3);
    await putGroupWindow(admin, group.id, { course_id: tree.courseId, level: "module", module_id: m2!.id }, { ends_at: groupEnd });

    // The member: the default grid's course and module 1 windows do not apply; the group's module 2 window does.
    expect(await courseStatus(student, tree.courseId)).toEqual(OPEN);
    const member = await indexOf(student, tree.courseId);
    expect(member.statuses[m1!.id]).toEqual(OPEN);
    expect(member.statuses[m2!.id]).toEqual({ locked: true, locked_reason: "course_ended", available_from: null, available_until: groupEnd });
    // The outsider keeps the default grid.
    expect((await courseStatus(outsider, tree.courseId)).locked_reason).toBe("course_not_started");
    expect((await indexOf(outsider, tree.courseId)).statuses[m2!.id]!.locked_reason).toBe("course_not_started");

    // A deleted group's grid no longer counts.
    await as(admin, `/t/groups/${group.id}`, { method: "DELETE" });
    expect((await courseStatus(student, tree.courseId)).locked_reason).toBe("course_not_started");
  });

  it("with two groups, the most lenient window per node applies: earliest start, latest end, allow_* if any; a node one grid leaves open is open", async () => {
    const { school, admin, student, tree } = await setup();
    const early = await createGroup(school.id);
    const late = await createGroup(school.id);
    await addMember(early, student.id);
    await addMember(late, student.id);
    const [m1, m2] = tree.modules;
    const node = (moduleId: string) => ({ course_id: tree.courseId, level: "module" as const, module_id: moduleId });

    // Module 1: closed in each grid alone (one not started, one ended), open as the union of the two.
    const earlyStart = days(-10);
    const lateEnd = days(10);
    await putGroupWindow(admin, early.id, node(m1!.id), { starts_at: earlyStart, ends_at: days(-5) });
    await putGroupWindow(admin, late.id, node(m1!.id), { starts_at: days(2), ends_at: lateEnd });
    // Module 2: only the early group has a window; the late group's grid leaves it unrestricted.
    await putGroupWindow(admin, early.id, node(m2!.id), { ends_at: days(-1) });

    const index = await indexOf(student, tree.courseId);
    expect(index.statuses[m1!.id]).toEqual({ locked: false, locked_reason: null, available_from: earlyStart, available_until: lateEnd });
    expect(index.statuses[m2!.id]).toEqual(OPEN);

    // The course: the earlier start of the two; allow_before_start of either grid opens it.
    const course = { course_id: tree.courseId, level: "course" as const };
    const earliest = days(3);
    await putGroupWindow(admin, early.id, course, { starts_at: earliest, ends_at: days(20) });
    await putGroupWindow(admin, late.id, course, { starts_at: days(5), ends_at: days(10) });
    expect(await courseStatus(student, tree.courseId)).toEqual({ locked: true, locked_reason: "course_not_started", available_from: earliest, available_until: expect.stringMatching(ISO) });
    await putGroupWindow(admin, late.id, course, { starts_at: days(5), ends_at: days(10), allow_before_start: true });
    expect((await courseStatus(student, tree.courseId)).locked).toBe(false);
    // No end bound in one grid beats a passed end in the other.
    await putGroupWindow(admin, early.id, course, { starts_at: days(-5) });
    await putGroupWindow(admin, late.id, course, { starts_at: days(-5), ends_at: days(-1) });
    expect(await courseStatus(student, tree.courseId)).toMatchObject({ locked: false, available_until: null });
  });
});
