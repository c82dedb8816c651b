import { id } from "../seed/demo.mjs";
import { PEOPLE, label, labelOf } from "./lib/tour.mjs";

export const summary = "the leaderboard as a student, a restricted curator and the admin; a board over a time window (its sums kept per window); rules and overrides; a bonus; a student's ranks";

const QUIZ = id(0x1001);
const board = (json) => json.data.entries.map((e) => [e.rank, e.display_name, e.points]);

/** Changes a rule default and an override and puts both back; the bonus carries a fixed key, so a second run answers the same event (200). */
export async function run(t) {
  const { student1, student2, student3, restrictedCurator, admin } = PEOPLE;
  const sara = await t.login(student1);
  const rita = await t.login(restrictedCurator);
  const ada = await t.login(admin);

  t.section(`${labelOf(student1)} board: the others' names shortened, her own rank and points`);
  await t.step("Sara's board", { who: sara, path: "/t/rating", show: (json) => ({ caller_rank: json.data.caller_rank, caller_points: json.data.caller_points, entries: board(json) }) });
  t.section(`${label(restrictedCurator)} sees only her students, without caller_* fields`);
  await t.step("Rita's board", { who: rita, path: "/t/rating", show: (json) => ({ total_students: json.data.total_students, entries: board(json) }) });

  t.section("What the board can be narrowed to, and the board of quiz and assignment points only");
  await t.step("Filter options", { who: ada, path: "/t/rating/filter-options", show: (json) => Object.fromEntries(Object.entries(json.data).map(([key, items]) => [key, Array.isArray(items) ? items.map((x) => x.title) : items])) });
  await t.step("Quiz and assignment points", { who: ada, path: "/t/rating?source_types=quiz,assignment", show: board });
  // A window alone is kept summed per student once read (docs/decisions/heavy-reads-rating.md,
  // "Window snapshots"): the first read sums the events and asks the queue, later reads answer from the sums.
  await t.step("The board of 2026", { who: ada, path: "/t/rating?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z", show: (json) => ({ time_window: json.data.time_window, entries: board(json) }) });

  t.section("The rules, then a default changed and put back, a refused one, and an override for one quiz");
  await t.step("The rules", { who: ada, path: "/t/admin/gamification/rules", show: (json) => json.data.rules.map((r) => [r.source_type, r.kind, r.points, r.calc_mode, r.repeat_behavior]) });
  try {
    await t.step("Quiz points only if passed", { method: "PUT", who: ada, path: "/t/admin/gamification/rules/defaults/quiz", body: { award_only_if_passed: true } });
  } finally {
    await t.step("Put it back", { method: "PUT", who: ada, path: "/t/admin/gamification/rules/defaults/quiz", body: { award_only_if_passed: false } });
  }
  await t.step("Assignments have no passing score: refused", { method: "PUT", who: ada, path: "/t/admin/gamification/rules/defaults/assignment", body: { threshold_source: "passing_score" }, expect: 400 });
  try {
    await t.step("20 points for the check-up quiz", { method: "PUT", who: ada, path: `/t/admin/gamification/rules/overrides/quiz/${QUIZ}`, body: { points: "20.00" } });
    await t.step("The overrides", { who: ada, path: "/t/admin/gamification/rules", show: (json) => json.data.rules.filter((r) => r.kind === "override").map((r) => [r.target_title, r.points, r.overridden_fields]) });
  } finally {
    await t.step("Remove the override", { method: "DELETE", who: ada, path: `/t/admin/gamification/rules/overrides/quiz/${QUIZ}` });
  }

  t.section(`A bonus for ${label(student2)}: the key makes a later run answer the same event (201, then 200)`);
  await t.step("3.50 points for Timur", {
    method: "POST",
    who: ada,
    path: "/t/admin/rating/adjustments",
    body: { student_id: student2.id, points: "3.50", reason: "Helped a classmate", idempotency_key: "tour-rating-timur" },
    expect: [200, 201],
  });

  t.section(`${labelOf(student3)} ranks and her latest point events`);
  await t.step("Lola's summary", { who: ada, path: `/t/admin/rating/students/${student3.id}/summary` });
  await t.step("Lola's events", { who: ada, path: `/t/admin/rating/students/${student3.id}/events?limit=3`, show: (json) => ({ total: json.data.total, events: json.data.events.map((e) => [e.source_type, e.target_label, e.points]) }) });
}
