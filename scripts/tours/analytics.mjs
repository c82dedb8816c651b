import { id } from "../seed/demo.mjs";
import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "a quiz's analytics and who may read them; the curators' performance this month (live, then from its snapshot) and a curator's own row";

const QUIZ = id(0x1001);

/** Reads only: runs as often as you like. */
export async function run(t) {
  const { restrictedCurator, curator, admin } = PEOPLE;
  const rita = await t.login(restrictedCurator);
  const paul = await t.login(curator);
  const ada = await t.login(admin);

  t.section(`The check-up quiz's analytics; ${label(restrictedCurator)} lacks can_view_analytics`);
  await t.step(`As ${label(curator)}`, {
    who: paul,
    path: `/t/quizzes/${QUIZ}/analytics`,
    show: (json) => ({ ...pick(json.data, ["attempt_count", "submitted_count", "avg_score_pct", "pass_rate"]), per_question: json.data.per_question.map((q) => q.success_rate) }),
  });
  await t.step("As Rita: forbidden", { who: rita, path: `/t/quizzes/${QUIZ}/analytics`, expect: 403 });
  await t.step("include_admin_attempts takes true or false only", { who: paul, path: `/t/quizzes/${QUIZ}/analytics?include_admin_attempts=yes`, expect: 400 });

  t.section("Curators this month (admin), and Rita's own row since the demo began");
  await t.step("Every curator", {
    who: ada,
    path: "/t/analytics/curators",
    show: (json) => ({ ...pick(json.data, ["from", "to", "computed_at", "exam_applicable"]), summary: json.data.summary?.students, curators: json.data.curators.map((c) => pick(c, ["last_name", "students", "active"])) }),
  });
  // The first read of a query answers live and asks the queue for a snapshot; the queue builds it
  // in slices of students within a second or two (docs/decisions/heavy-reads-curators.md).
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await t.step("Every curator again: from the snapshot (computed_at as the first read's, `to` the same instant)", {
    who: ada,
    path: "/t/analytics/curators",
    show: (json) => ({ ...pick(json.data, ["to", "computed_at"]), summary: json.data.summary?.students }),
  });
  await t.step("Rita's row", {
    who: rita,
    path: "/t/analytics/curators?from=2025-01-01T00:00:00Z",
    show: (json) => json.data.curators.map((c) => pick(c, ["students", "assignments_on_time", "quizzes_completed", "exams_completed"])),
  });
}
