import { describe, expect, it } from "vitest";
import { insertCourseTree } from "../../helpers/courses";
import { failure } from "../../helpers/http";
import { addGroupCurator, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { clearGroupWindow, days, getGroupGrid, putGroupWindow, putWindow } from "./helpers";

describe("group grids: PUT, GET and DELETE /groups/:id/course-schedule", () => {
  it("sets windows at each level of a group's grid, reads the grid in course order, and clears a module with its lessons", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 1] });
    const group = await createGroup(school.id);
    const [m1, m2] = tree.modules;
    const course = { course_id: tree.courseId };

    // Written out of course order on purpose.
    expect((await putGroupWindow(admin, group.id, { ...course, level: "module", module_id: m2!.id }, { ends_at: days(9) })).status).toBe(200);
    const lessonPut = await putGroupWindow(admin, group.id, { ...course, level: "lesson", module_id: m2!.id, lesson_id: m2!.lessons[1]!.id }, { ends_at: days(3) });
    expect(lessonPut.body.data.window).toMatchObject({ group_id: group.id, course_id: tree.courseId, level: "lesson", module_id: m2!.id, lesson_id: m2!.lessons[1]!.id });
    await putGroupWindow(admin, group.id, { ...course, level: "module", module_id: m1!.id }, { starts_at: days(-1) });
    await putGroupWindow(admin, group.id, { ...course, level: "lesson", module_id: m2!.id, lesson_id: m2!.lessons[0]!.id }, { ends_at: days(2) });
    const coursePut = await putGroupWindow(admin, group.id, { ...course, level: "course" }, { starts_at: days(-5), ends_at: days(30) });
    expect(coursePut.body.data.window).toMatchObject({ group_id: group.id, level: "course", module_id: null, lesson_id: null });

    const grid = await getGroupGrid(admin, group.id, tree.courseId);
    expect(grid.status).toBe(200);
    expect(grid.body.data.course_id).toBe(tree.courseId);
    expect(grid.body.data.group_id).toBe(group.id);
    expect(grid.body.data.windows.map((window: { level: string; module_id: string | null; lesson_id: string | null }) => window.lesson_id ?? window.module_id ?? window.level)).toEqual([
      "course",
      m1!.id,
      m2!.id,
      m2!.lessons[0]!.id,
      m2!.lessons[1]!.id,
    ]);

    // The group grid is not the default grid.
    const tree0 = await as(admin, `/t/courses/${tree.courseId}/schedule-tree`);
    expect(tree0.body.data).toEqual({ course_id: tree.courseId, group_id: null, windows: [] });

    // A repeated PUT changes nothing; a changed one updates in place.
    const repeat = await putGroupWindow(admin, group.id, { ...course, level: "course" }, { starts_at: days(-5), ends_at: days(30) });
    expect(repeat.body.data.window.id).toBe(coursePut.body.data.window.id);

    expect((await clearGroupWindow(admin, group.id, { ...course, level: "module", module_id: m2!.id })).body.data).toEqual({ cleared: true });
    const after = await getGroupGrid(admin, group.id, tree.courseId);
    expect(after.body.data.windows.map((window: { level: string }) => window.level)).toEqual(["course", "module"]);
    expect(failure(await clearGroupWindow(admin, group.id, { ...course, level: "lesson", module_id: m2!.id, lesson_id: m2!.lessons[0]!.id }))).toEqual({
      status: 404,
      error: "schedule_window_not_found",
    });
  });

  it("GET: 400 invalid_id_format for a bad group id or a missing or bad course_id; 404 schedule_target_not_found for a missing group or course", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const deletedGroup = await createGroup(school.id, { deleted: true });
    const foreignGroup = await createGroup(other.school.id);
    expect(failure(await getGroupGrid(admin, "nope", tree.courseId))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await as(admin, `/t/groups/${group.id}/course-schedule`))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await getGroupGrid(admin, group.id, "nope"))).toEqual({ status: 400, error: "invalid_id_format" });
    for (const groupId of [unknownId(), deletedGroup.id, foreignGroup.id]) {
      expect(failure(await getGroupGrid(admin, groupId, tree.courseId))).toEqual({ status: 404, error: "schedule_target_not_found" });
    }
    expect(failure(await getGroupGrid(admin, group.id, unknownId()))).toEqual({ status: 404, error: "schedule_target_not_found" });
  });

  it("PUT: 400 invalid_id_format, schedule_window_no_bounds, schedule_window_inverted; invalid_request_body for a level without its ids", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const node = { course_id: tree.courseId, level: "course" as const };
    expect(failure(await putGroupWindow(admin, "nope", node, { ends_at: days(1) }))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await putGroupWindow(admin, group.id, node, {}))).toEqual({ status: 400, error: "schedule_window_no_bounds" });
    expect(failure(await putGroupWindow(admin, group.id, node, { starts_at: days(3), ends_at: days(2) }))).toEqual({ status: 400, error: "schedule_window_inverted" });
    expect(failure(await putGroupWindow(admin, group.id, { course_id: tree.courseId, level: "module" }, { ends_at: days(1) }))).toEqual({
      status: 400,
      error: "invalid_request_body",
    });
    expect(failure(await putGroupWindow(admin, group.id, { course_id: tree.courseId, level: "lesson", module_id: tree.modules[0]!.id }, { ends_at: days(1) }))).toEqual({
      status: 400,
      error: "invalid_request_body",
    });
    expect(failure(await as(admin, `/t/groups/${group.id}/course-schedule`, { method: "PUT", body: { ...node } }))).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it("PUT: 404 schedule_target_not_found for a missing group, course, module or lesson, or a lineage that does not match the tree", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [2, 1, 1] });
    const second = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const foreignGroup = await createGroup(other.school.id);
    const [m1, m2] = tree.modules;
    const window = { ends_at: days(1) };
    const cases = [
      [unknownId(), { course_id: tree.courseId, level: "course" }],
      [foreignGroup.id, { course_id: tree.courseId, level: "course" }],
      [group.id, { course_id: unknownId(), level: "course" }],
      [group.id, { course_id: tree.courseId, level: "module", module_id: unknownId() }],
      [group.id, { course_id: second.courseId, level: "module", module_id: m1!.id }],
      [group.id, { course_id: tree.courseId, level: "lesson", module_id: m1!.id, lesson_id: unknownId() }],
      [group.id, { course_id: tree.courseId, level: "lesson", module_id: m1!.id, lesson_id: m2!.lessons[0]!.id }],
    ] as const;
    for (const [groupId, node] of cases) {
      expect(failure(await putGroupWindow(admin, groupId, node, window))).toEqual({ status: 404, error: "schedule_target_not_found" });
      expect(failure(await clearGroupWindow(admin, groupId, node))).toEqual({ status: 404, error: "schedule_target_not_found" });
    }
  });

  it("PUT: 409 module_schedule_required for a lesson whose module has no window in this group's grid (the default grid's does not count)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const otherGroup = await createGroup(school.id);
    const moduleId = tree.modules[0]!.id;
    await putWindow(admin, "modules", moduleId, { ends_at: days(5) });
    await putGroupWindow(admin, otherGroup.id, { course_id: tree.courseId, level: "module", module_id: moduleId }, { ends_at: days(5) });
    const lesson = { course_id: tree.courseId, level: "lesson" as const, module_id: moduleId, lesson_id: tree.lessonIds[0]! };
    expect(failure(await putGroupWindow(admin, group.id, lesson, { ends_at: days(1) }))).toEqual({ status: 409, error: "module_schedule_required" });
    await putGroupWindow(admin, group.id, { course_id: tree.courseId, level: "module", module_id: moduleId }, { ends_at: days(5) });
    expect((await putGroupWindow(admin, group.id, lesson, { ends_at: days(1) })).status).toBe(200);
  });
});

describe("GET /courses/:id/schedule-tree", () => {
  it("lists the default grid's windows on live nodes in course order; 400 invalid_id_format; 404 schedule_target_not_found", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 1], status: "draft" });
    const [m1, m2] = tree.modules;
    await putWindow(admin, "modules", m2!.id, { ends_at: days(9) });
    await putWindow(admin, "lessons", m2!.lessons[1]!.id, { ends_at: days(2) });
    await putWindow(admin, "modules", m1!.id, { ends_at: days(9) });
    await putWindow(admin, "courses", tree.courseId, { ends_at: days(40) });
    await putWindow(admin, "lessons", m1!.lessons[0]!.id, { ends_at: days(2) });
    const res = await as(admin, `/t/courses/${tree.courseId}/schedule-tree`);
    expect(res.status).toBe(200);
    expect(res.body.data.group_id).toBeNull();
    expect(res.body.data.windows.map((window: { module_id: string | null; lesson_id: string | null }) => window.lesson_id ?? window.module_id ?? "course")).toEqual([
      "course",
      m1!.id,
      m1!.lessons[0]!.id,
      m2!.id,
      m2!.lessons[1]!.id,
    ]);
    // A deleted lesson's window leaves the tree with it.
    await as(admin, `/t/lessons/${m1!.lessons[0]!.id}`, { method: "DELETE" });
    expect((await as(admin, `/t/courses/${tree.courseId}/schedule-tree`)).body.data.windows).toHaveLength(4);

    expect(failure(await as(admin, "/t/courses/nope/schedule-tree"))).toEqual({ status: 400, error: "invalid_id_format" });
    const foreign = await insertCourseTree(other.school.id);
    for (const id of [unknownId(), foreign.courseId]) {
      expect(failure(await as(admin, `/t/courses/${id}/schedule-tree`))).toEqual({ status: 404, error: "schedule_target_not_found" });
    }
  });

  it("a curator without can_manage_groups reaches only the grids of the groups they curate", async () => {
    const { school } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 1] });
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    const own = await createGroup(school.id);
    const other = await createGroup(school.id);
    await addGroupCurator(own, curator.id);
    const node = { course_id: tree.courseId, level: "course" as const };
    expect((await putGroupWindow(curator, own.id, node, { ends_at: days(5) })).status).toBe(200);
    expect(failure(await putGroupWindow(curator, other.id, node, { ends_at: days(5) }))).toEqual({ status: 404, error: "schedule_target_not_found" });
    expect(failure(await getGroupGrid(curator, other.id, tree.courseId))).toEqual({ status: 404, error: "schedule_target_not_found" });
    expect(failure(await clearGroupWindow(curator, other.id, node))).toEqual({ status: 404, error: "schedule_target_not_found" });
  });
});
