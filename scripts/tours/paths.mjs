import { COURSE } from "../seed/courses.mjs";
import { PEOPLE, labelOf, pick } from "./lib/tour.mjs";

export const summary = "a learning path published, a student's view and the registry; a module's date window and the lock it puts";

/** Makes its own path (a fresh title) and deletes it; sets a window on module 2 and clears it again. */
export async function run(t) {
  const { admin, student1 } = PEOPLE;
  const ada = await t.login(admin);
  const sara = await t.login(student1);
  const module2 = COURSE.modules[1];

  t.section("A learning path of the demo course then the draft one (fresh title), published");
  const path = await t.step("Create it", { method: "POST", who: ada, path: "/t/learning-paths", body: { title: `Tour path ${t.runId}`, description: "Start here" }, expect: 201, show: (json) => pick(json.data, ["id", "title", "status"]) });
  const p = path.data.id;
  await t.step("Its courses", { method: "PATCH", who: ada, path: `/t/learning-paths/${p}/courses`, body: { course_ids: [COURSE.id, COURSE.draftId] } });
  await t.step("Publish", { method: "POST", who: ada, path: `/t/learning-paths/${p}/publish` });

  t.section(`${labelOf(student1)} view (students see published courses only) and the path's registry`);
  await t.step("Sara's paths", { who: sara, path: "/t/students/me/paths", show: (json) => json.data.paths.find((x) => x.path_id === p)?.courses });
  await t.step("The registry", { who: ada, path: `/t/learning-paths/${p}/students`, show: (json) => json.data.students.map((s) => pick(s, ["email", "courses_unlocked", "courses_completed"])) });
  await t.step("Unpublish", { method: "POST", who: ada, path: `/t/learning-paths/${p}/unpublish` });
  await t.step("Delete", { method: "DELETE", who: ada, path: `/t/learning-paths/${p}` });

  t.section("Dates: module 2 of the demo course opens in 2030; Sara sees it locked, with its opening date; then the window is cleared");
  try {
    await t.step("A window on module 2", { method: "PUT", who: ada, path: `/t/modules/${module2}/schedule`, body: { starts_at: "2030-01-01T09:00:00Z", ends_at: null }, show: (json) => pick(json.data.window, ["level", "starts_at", "ends_at"]) });
    const modules = await t.step("Sara's module index", { who: sara, path: `/t/courses/${COURSE.id}/modules`, show: (json) => json.data.modules.map((m) => pick(m, ["title", "locked", "locked_reason", "available_from"])) });
    t.check(modules.data.modules.find((m) => m.id === module2)?.locked === true, "module 2 is locked for Sara");
    await t.step("The course's schedule tree", { who: ada, path: `/t/courses/${COURSE.id}/schedule-tree`, show: (json) => json.data.windows.map((w) => pick(w, ["level", "starts_at"])) });
  } finally {
    await t.step("Clear the window", { method: "DELETE", who: ada, path: `/t/modules/${module2}/schedule` });
  }
}
