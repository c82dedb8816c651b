import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, ISO } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { clearWindow, days, getWindow, putWindow } from "./helpers";

const LEVELS = [
  ["courses", (tree: Awaited<ReturnType<typeof insertCourseTree>>) => tree.courseId],
  ["modules", (tree: Awaited<ReturnType<typeof insertCourseTree>>) => tree.modules[0]!.id],
  ["lessons", (tree: Awaited<ReturnType<typeof insertCourseTree>>) => tree.lessonIds[0]!],
] as const;

async function windowRows(nodeId: string) {
  return db().select().from(schema.scheduleWindows).where(eq(schema.scheduleWindows.nodeId, nodeId));
}

describe("default-grid windows: GET, PUT, DELETE per node", () => {
  it("sets, reads, changes in place, repeats without change and clears a window at each level", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { status: "draft", shape: [1, 1, 1] });
    const moduleId = tree.modules[0]!.id;
    const lessonId = tree.lessonIds[0]!;

    expect((await getWindow(admin, "courses", tree.courseId)).body.data).toEqual({ window: null });

    const start = "2031-01-10T08:00:00.000Z";
    const end = "2031-03-01T20:00:00.000Z";
    const put = await putWindow(admin, "courses", tree.courseId, { starts_at: start, ends_at: end });
    expect(put.status).toBe(200);
    expect(put.body.data.window).toEqual({
      id: expect.any(String),
      course_id: tree.courseId,
      group_id: null,
      level: "course",
      module_id: null,
      lesson_id: null,
      starts_at: start,
      ends_at: end,
      allow_before_start: false,
      allow_after_end: false,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect((await getWindow(admin, "courses", tree.courseId)).body.data.window).toEqual(put.body.data.window);

    // The same PUT again changes nothing, not even updated_at.
    const again = await putWindow(admin, "courses", tree.courseId, { starts_at: start, ends_at: end });
    expect(again.body.data.window).toEqual(put.body.data.window);

    // A changed window is the same row, updated in place; an offset is converted to UTC.
    const changed = await putWindow(admin, "courses", tree.courseId, { starts_at: "2031-01-10T10:00:00+02:00", ends_at: null, allow_after_end: true });
    expect(changed.body.data.window).toMatchObject({ id: put.body.data.window.id, starts_at: start, ends_at: null, allow_after_end: true });
    expect(await windowRows(tree.courseId)).toHaveLength(1);

    const modulePut = await putWindow(admin, "modules", moduleId, { ends_at: end, allow_before_start: true });
    expect(modulePut.body.data.window).toMatchObject({ course_id: tree.courseId, level: "module", module_id: moduleId, lesson_id: null, starts_at: null, allow_before_start: true });
    const lessonPut = await putWindow(admin, "lessons", lessonId, { starts_at: start });
    expect(lessonPut.body.data.window).toMatchObject({ course_id: tree.courseId, level: "lesson", module_id: moduleId, lesson_id: lessonId, group_id: null });

    const cleared = await clearWindow(admin, "courses", tree.courseId);
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toEqual({ cleared: true });
    expect((await getWindow(admin, "courses", tree.courseId)).body.data.window).toBeNull();
    const [row] = await windowRows(tree.courseId);
    expect(row!.deletedAt).not.toBeNull();
    // The course's clear leaves the module's and lesson's windows alone.
    expect((await getWindow(admin, "lessons", lessonId)).body.data.window).not.toBeNull();

    // After a clear, a new PUT starts a new row.
    const fresh = await putWindow(admin, "courses", tree.courseId, { ends_at: end });
    expect(fresh.body.data.window.id).not.toBe(put.body.data.window.id);
  });

  it("a module's clear takes its lessons' windows in the grid with it, in one batch", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 1] });
    const [first, second] = tree.modules;
    await putWindow(admin, "modules", first!.id, { ends_at: days(10) });
    await putWindow(admin, "modules", second!.id, { ends_at: days(10) });
    for (const lesson of [...first!.lessons, ...second!.lessons]) expect((await putWindow(admin, "lessons", lesson.id, { ends_at: days(5) })).status).toBe(200);

    expect((await clearWindow(admin, "modules", first!.id)).body.data).toEqual({ cleared: true });
    for (const lesson of first!.lessons) expect((await getWindow(admin, "lessons", lesson.id)).body.data.window).toBeNull();
    for (const lesson of second!.lessons) expect((await getWindow(admin, "lessons", lesson.id)).body.data.window).not.toBeNull();
    const deletedAt = new Set((await Promise.all(first!.lessons.map((lesson) => windowRows(lesson.id)))).flat().map((row) => row.deletedAt));
    const moduleDeletedAt = (await windowRows(first!.id))[0]!.deletedAt;
    expect([...deletedAt]).toEqual([moduleDeletedAt]);
    // The lesson cannot get a window again until its module has one.
    expect(failure(await putWindow(admin, "lessons", first!.lessons[0]!.id, { ends_at: days(3) }))).toEqual({ status: 409, error: "module_schedule_required" });
  });

  it("a curator with can_manage_courses manages windows; a student and a curator without it are refused", async () => {
    const { school } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect((await putWindow(curator, "courses", tree.courseId, { ends_at: days(1) })).status).toBe(200);
    const plain = await signedIn(school, curatorWith({}));
    expect(failure(await getWindow(plain, "courses", tree.courseId))).toEqual({ status: 403, error: "forbidden" });
    const student = await signedIn(school, { role: "student" });
    expect(failure(await putWindow(student, "courses", tree.courseId, { ends_at: days(1) }))).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("default-grid windows: contract failures", () => {
  it.each(LEVELS)("/%s/:id/schedule: 400 invalid_id_format on every verb", async (level) => {
    const { admin } = await schoolWithAdmin();
    expect(failure(await getWindow(admin, level, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await putWindow(admin, level, "not-a-uuid", { ends_at: days(1) }))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await clearWindow(admin, level, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it.each(LEVELS)("/%s/:id/schedule: 400 schedule_window_no_bounds and schedule_window_inverted", async (level, idOf) => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    expect(failure(await putWindow(admin, level, idOf(tree), { starts_at: null, ends_at: null }))).toEqual({ status: 400, error: "schedule_window_no_bounds" });
    expect(failure(await putWindow(admin, level, idOf(tree), { allow_after_end: true }))).toEqual({ status: 400, error: "schedule_window_no_bounds" });
    expect(failure(await putWindow(admin, level, idOf(tree), { starts_at: days(2), ends_at: days(1) }))).toEqual({ status: 400, error: "schedule_window_inverted" });
    // Equal bounds are in order.
    const instant = days(1);
    if (level === "lessons") await putWindow(admin, "modules", tree.modules[0]!.id, { ends_at: days(5) });
    expect((await putWindow(admin, level, idOf(tree), { starts_at: instant, ends_at: instant })).status).toBe(200);
    // Dates must be ISO 8601 date-times.
    expect(failure(await putWindow(admin, level, idOf(tree), { starts_at: "tomorrow" }))).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it.each(LEVELS)("/%s/:id/schedule: 404 schedule_target_not_found for a missing, deleted or other school's node", async (level, idOf) => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const foreign = await insertCourseTree(other.school.id);
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    for (const id of [unknownId(), idOf(foreign), idOf(deleted)]) {
      expect(failure(await getWindow(admin, level, id))).toEqual({ status: 404, error: "schedule_target_not_found" });
      expect(failure(await putWindow(admin, level, id, { ends_at: days(1) }))).toEqual({ status: 404, error: "schedule_target_not_found" });
      expect(failure(await clearWindow(admin, level, id))).toEqual({ status: 404, error: "schedule_target_not_found" });
    }
    // The other school's window is untouched and invisible.
    expect((await putWindow(other.admin, level === "lessons" ? "modules" : level, level === "lessons" ? foreign.modules[0]!.id : idOf(foreign), { ends_at: days(3) })).status).toBe(200);
    expect(failure(await getWindow(admin, level === "lessons" ? "modules" : level, level === "lessons" ? foreign.modules[0]!.id : idOf(foreign)))).toEqual({
      status: 404,
      error: "schedule_target_not_found",
    });
  });

  it.each(LEVELS)("/%s/:id/schedule: DELETE of an unset window is 404 schedule_window_not_found, and so is a repeated DELETE", async (level, idOf) => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    expect(failure(await clearWindow(admin, level, idOf(tree)))).toEqual({ status: 404, error: "schedule_window_not_found" });
    if (level === "lessons") await putWindow(admin, "modules", tree.modules[0]!.id, { ends_at: days(5) });
    await putWindow(admin, level, idOf(tree), { ends_at: days(1) });
    expect((await clearWindow(admin, level, idOf(tree))).status).toBe(200);
    expect(failure(await clearWindow(admin, level, idOf(tree)))).toEqual({ status: 404, error: "schedule_window_not_found" });
  });

  it("PUT /lessons/:id/schedule: 409 module_schedule_required without a module window in the default grid (a group grid's does not count)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await db()
      .insert(schema.groups)
      .values({ id: unknownId(), tenantId: school.id, name: "G", createdAt: Date.now(), updatedAt: Date.now() })
      .returning();
    await as(admin, `/t/groups/${group[0]!.id}/course-schedule`, {
      method: "PUT",
      body: { course_id: tree.courseId, level: "module", module_id: tree.modules[0]!.id, window: { ends_at: days(4) } },
    });
    expect(failure(await putWindow(admin, "lessons", tree.lessonIds[0]!, { ends_at: days(3) }))).toEqual({ status: 409, error: "module_schedule_required" });
    const rows = await db()
      .select()
      .from(schema.scheduleWindows)
      .where(and(eq(schema.scheduleWindows.nodeId, tree.lessonIds[0]!)));
    expect(rows).toEqual([]);
  });
});
