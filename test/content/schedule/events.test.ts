import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createUser } from "../../helpers/factories";
import { addMember, as, createGroup, schoolWithAdmin } from "../../helpers/users";
import { addPushDevice, call, outboxRows } from "../../notifications/helpers";
import { clearGroupWindow, clearWindow, days, putGroupWindow, putWindow } from "./helpers";

const setEvent = (admin: { token: string; subdomain: string }, code: string, enabled: boolean) =>
  call(admin, `/t/notifications/admin/events/${code}`, { method: "PATCH", body: { enabled } });

async function rowsOf(tenantId: string, code: string) {
  return (await outboxRows(tenantId)).filter((row) => row.eventCode === code);
}

const recipients = async (tenantId: string, code: string) => (await rowsOf(tenantId, code)).map((row) => row.userId).sort();

/** An enrolled student with an enabled push device. */
async function enrolledStudent(tenantId: string, courseId: string) {
  const student = await createUser(tenantId, { role: "student" });
  await addPushDevice(tenantId, student.id);
  await insertEnrollment(tenantId, courseId, student.id);
  return student;
}

async function setup(options: Parameters<typeof insertCourseTree>[1] = {}) {
  const { school, admin } = await schoolWithAdmin();
  await addPushDevice(school.id, admin.id);
  const tree = await insertCourseTree(school.id, { title: "Algebra", shape: [1, 2, 1], ...options });
  return { school, admin, tree };
}

describe("course.window_changed (#26)", () => {
  it("a changed course window tells each enrolled student once; a first window, a repeat, the actor and the unreachable get nothing", async () => {
    const { school, admin, tree } = await setup();
    const first = await enrolledStudent(school.id, tree.courseId);
    const second = await enrolledStudent(school.id, tree.courseId);
    const unreachable = await createUser(school.id, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, unreachable.id);
    const notEnrolled = await createUser(school.id, { role: "student" });
    await addPushDevice(school.id, notEnrolled.id);

    await putWindow(admin, "courses", tree.courseId, { starts_at: days(1), ends_at: days(10) });
    expect(await rowsOf(school.id, "course.window_changed")).toEqual([]);

    const start = "2031-02-01T09:00:00.000Z";
    const changed = await putWindow(admin, "courses", tree.courseId, { starts_at: start, ends_at: null });
    expect(changed.status).toBe(200);
    const rows = await rowsOf(school.id, "course.window_changed");
    expect(rows.map((row) => row.userId).sort()).toEqual([first.id, second.id].sort());
    for (const row of rows) {
      expect(row).toMatchObject({
        title: "Сроки курса изменены",
        aggregateType: "course",
        aggregateId: tree.courseId,
        dedupeKey: expect.stringMatching(new RegExp(`^course\\.window_changed:${tree.courseId}:\\d+:${row.userId}$`)),
        data: { event_code: "course.window_changed", course_id: tree.courseId, course_title: "Algebra", starts_at: start, ends_at: null },
      });
      expect(row.body).toMatch(/^Курс «Algebra»: начало \d{2}\.\d{2}\.2031 \d{2}:\d{2}, окончание —\.$/);
    }

    // The same PUT again changes nothing, so it tells nobody.
    await putWindow(admin, "courses", tree.courseId, { starts_at: start, ends_at: null });
    expect(await rowsOf(school.id, "course.window_changed")).toHaveLength(2);

    // A clear is a change too.
    expect((await clearWindow(admin, "courses", tree.courseId)).status).toBe(200);
    const afterClear = await rowsOf(school.id, "course.window_changed");
    expect(afterClear).toHaveLength(4);
    expect(afterClear.slice(2).map((row) => row.data)).toEqual([expect.objectContaining({ starts_at: null, ends_at: null }), expect.objectContaining({ starts_at: null, ends_at: null })]);
  });

  it("nothing for a draft course, or when the school turned the event off", async () => {
    const { school, admin, tree } = await setup({ status: "draft" });
    await enrolledStudent(school.id, tree.courseId);
    await putWindow(admin, "courses", tree.courseId, { ends_at: days(3) });
    await putWindow(admin, "courses", tree.courseId, { ends_at: days(4) });
    expect(await rowsOf(school.id, "course.window_changed")).toEqual([]);

    const published = await insertCourseTree(school.id);
    await enrolledStudent(school.id, published.courseId);
    await setEvent(admin, "course.window_changed", false);
    await putWindow(admin, "courses", published.courseId, { ends_at: days(3) });
    await putWindow(admin, "courses", published.courseId, { ends_at: days(4) });
    expect(await rowsOf(school.id, "course.window_changed")).toEqual([]);
  });

  it("a group grid's change tells only the members whose effective window changed", async () => {
    const { school, admin, tree } = await setup();
    const member = await enrolledStudent(school.id, tree.courseId);
    const inBoth = await enrolledStudent(school.id, tree.courseId);
    const outsider = await enrolledStudent(school.id, tree.courseId);
    const group = await createGroup(school.id);
    const lenient = await createGroup(school.id);
    await addMember(group, member.id);
    await addMember(group, inBoth.id);
    await addMember(lenient, inBoth.id);
    const course = { course_id: tree.courseId, level: "course" as const };
    await putWindow(admin, "courses", tree.courseId, { ends_at: days(5) });
    await putGroupWindow(admin, group.id, course, { ends_at: days(6) });
    // The lenient group's window has no end, so the group's end never reaches `inBoth`.
    await putGroupWindow(admin, lenient.id, course, { starts_at: days(-30) });
    expect(await rowsOf(school.id, "course.window_changed")).toEqual([]);

    await putGroupWindow(admin, group.id, course, { ends_at: days(7) });
    expect(await recipients(school.id, "course.window_changed")).toEqual([member.id]);

    // Clearing the group's only window takes the group's grid away: its member falls back to the
    // default grid, whose window differs, and `inBoth` keeps the lenient grid alone, whose start
    // now counts; the outsider is never told.
    expect((await clearGroupWindow(admin, group.id, course)).status).toBe(200);
    expect(await recipients(school.id, "course.window_changed")).toEqual([member.id, member.id, inBoth.id].sort());
    expect((await rowsOf(school.id, "course.window_changed")).some((row) => row.userId === outsider.id)).toBe(false);
  });
});

describe("module.window_changed (#27) and lesson.window_changed (#28)", () => {
  it("clearing a module window that takes its lesson windows along sends #27 only", async () => {
    const { school, admin, tree } = await setup();
    await setEvent(admin, "module.window_changed", true);
    const student = await enrolledStudent(school.id, tree.courseId);
    const module = tree.modules[0]!;
    await putWindow(admin, "modules", module.id, { ends_at: days(9) });
    for (const lesson of module.lessons) await putWindow(admin, "lessons", lesson.id, { ends_at: days(3) });
    await putWindow(admin, "modules", module.id, { ends_at: days(8) });
    expect(await recipients(school.id, "module.window_changed")).toEqual([student.id]);
    const [row] = await rowsOf(school.id, "module.window_changed");
    expect(row).toMatchObject({ aggregateType: "module", aggregateId: module.id, data: { module_id: module.id, module_title: "Module 1", course_title: "Algebra" } });

    expect((await clearWindow(admin, "modules", module.id)).status).toBe(200);
    expect(await recipients(school.id, "module.window_changed")).toEqual([student.id, student.id]);
    expect(await rowsOf(school.id, "lesson.window_changed")).toEqual([]);
  });

  it("#28 goes to the enrolled students who see the lesson, in the default grid and in a group's grid", async () => {
    const { school, admin, tree } = await setup();
    const member = await enrolledStudent(school.id, tree.courseId);
    const other = await enrolledStudent(school.id, tree.courseId);
    const group = await createGroup(school.id);
    await addMember(group, member.id);
    const module = tree.modules[0]!;
    const [open, restricted] = module.lessons;
    expect((await as(admin, `/t/lessons/${restricted!.id}/groups`, { method: "PUT", body: { group_ids: [group.id] } })).status).toBe(200);

    await putWindow(admin, "modules", module.id, { ends_at: days(9) });
    await putWindow(admin, "lessons", open!.id, { ends_at: days(3) });
    await putWindow(admin, "lessons", restricted!.id, { ends_at: days(3) });
    await putWindow(admin, "lessons", open!.id, { ends_at: days(4) });
    await putWindow(admin, "lessons", restricted!.id, { ends_at: days(4) });
    const rows = await rowsOf(school.id, "lesson.window_changed");
    expect(rows.filter((row) => row.aggregateId === open!.id).map((row) => row.userId).sort()).toEqual([member.id, other.id].sort());
    // Only the group's member sees the restricted lesson. The member has no group grid yet.
    expect(rows.filter((row) => row.aggregateId === restricted!.id).map((row) => row.userId)).toEqual([member.id]);
    expect(rows[0]).toMatchObject({ title: "Сроки урока изменены", data: { lesson_id: open!.id, lesson_title: "Lesson 1.1", course_title: "Algebra" } });

    const node = { course_id: tree.courseId, level: "lesson" as const, module_id: module.id, lesson_id: open!.id };
    await putGroupWindow(admin, group.id, { course_id: tree.courseId, level: "module", module_id: module.id }, { ends_at: days(9) });
    await putGroupWindow(admin, group.id, node, { ends_at: days(2) });
    await putGroupWindow(admin, group.id, node, { ends_at: days(1) });
    const groupRows = (await rowsOf(school.id, "lesson.window_changed")).slice(rows.length);
    expect(groupRows.map((row) => row.userId)).toEqual([member.id]);
  });
});
