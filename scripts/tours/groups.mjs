import { COURSE } from "../seed/courses.mjs";
import { DEMO, id } from "../seed/demo.mjs";
import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "groups as the admin and a restricted curator see them, members, a group enrolled in a course and unlinked";

/** Makes its own group (a fresh name each run), enrolls it, unlinks it and deletes it. */
export async function run(t) {
  const { admin, restrictedCurator, student3, student4 } = PEOPLE;
  const ada = await t.login(admin);
  const rita = await t.login(restrictedCurator);

  t.section(`The groups as the admin sees them, and as ${label(restrictedCurator)} (only the group she curates)`);
  await t.step("Ada's groups", { who: ada, path: "/t/groups", show: (json) => json.data.groups.map((g) => ({ ...pick(g, ["name", "curator_email", "member_count"]), logo: g.logo_url != null })) });
  await t.step("Rita's groups", { who: rita, path: "/t/groups", show: (json) => json.data.groups.map((g) => g.name) });
  await t.step("The Morning group's members", { who: ada, path: `/t/groups/${DEMO.groupId}/members`, show: (json) => json.data.members.map((m) => m.email) });

  t.section("The groups enrolled in the demo course, and what removing each would do to its members' access");
  await t.step("Group enrollments", {
    who: ada,
    path: `/t/courses/${COURSE.id}/group-enrollments`,
    show: (json) => ({ counts: json.data.counts, rows: json.data.group_enrollments.map((g) => pick(g, ["name", "enrolled_students_count", "would_remove_count", "would_retain_count"])) }),
  });

  t.section(`A new group: ${label(student3)}, ${label(student4)} and an unknown id (partial success), enrolled, unlinked, deleted`);
  const group = await t.step("Create it", { method: "POST", who: ada, path: "/t/groups", body: { name: `Tour group ${t.runId}`, description: "Made by the groups tour" }, expect: 201, show: (json) => pick(json.data, ["id", "name"]) });
  const g = group.data.id;
  await t.step("Add members", { method: "POST", who: ada, path: `/t/groups/${g}/members`, body: { student_ids: [student3.id, student4.id, id(0xfffff)] } });
  await t.step("Enroll the group in the demo course", { method: "POST", who: ada, path: `/t/courses/${COURSE.id}/group-enrollments`, body: { group_id: g }, expect: 201 });
  await t.step("Again: 200, nothing new", { method: "POST", who: ada, path: `/t/courses/${COURSE.id}/group-enrollments`, body: { group_id: g }, show: (json) => pick(json.data, ["enrolled_count", "already_enrolled_count"]) });
  await t.step("Delete it while linked: refused", { method: "DELETE", who: ada, path: `/t/groups/${g}`, expect: 409 });
  await t.step("Unlink it (members with a direct enrollment keep it)", { method: "DELETE", who: ada, path: `/t/courses/${COURSE.id}/group-enrollments/${g}` });
  await t.step("Delete it", { method: "DELETE", who: ada, path: `/t/groups/${g}` });
}
