import { id } from "../seed/demo.mjs";
import { PEOPLE, label, labelOf, pick } from "./lib/tour.mjs";

export const summary = "a student's accommodation profile (more time and attempts everywhere) and a live extension of a running exam";

const EXAM = id(0x1101);
const PROFILE = { time_multiplier: "1.50", extra_time_seconds: 120, extra_attempts: 1, note: "Demo: extra time by a medical certificate" };

/**
 * Ada reads and sets Omar's (student4) profile (the seed's values, so every run leaves it as the seed
 * does); Omar sees his own limits on the exam but never the profile; Paul extends Omar's running
 * exam attempt by 5 minutes, then Omar submits it. Once his attempts run out a new start is
 * refused, which the tour accepts and says so.
 */
export async function run(t) {
  const { admin, curator, student4 } = PEOPLE;
  const ada = await t.login(admin);
  const paul = await t.login(curator);
  const omar = await t.login(student4);

  t.section(`${label(admin)} reads and sets ${labelOf(student4)} accommodation profile`);
  await t.step("The profile", { who: ada, path: `/t/users/${student4.id}/accommodation` });
  await t.step("Set it (the seed's values)", { method: "PUT", who: ada, path: `/t/users/${student4.id}/accommodation`, body: PROFILE });

  t.section(`${label(student4)} sees his own limits, never the profile`);
  await t.step("The exam in his view", {
    who: omar,
    path: `/t/exams/${EXAM}`,
    show: (json) => pick(json.data, ["title", "time_limit_seconds", "max_attempts", "effective_time_limit_seconds", "effective_max_attempts"]),
  });
  await t.step("His profile is staff-only", { who: omar, path: `/t/users/${student4.id}/accommodation`, expect: 403 });

  t.section(`${label(curator)} gives Omar's running exam 5 more minutes`);
  const attempt = await t.step("Omar starts or resumes the exam", {
    method: "POST",
    who: omar,
    path: "/t/exam-attempts",
    body: { exam_id: EXAM },
    expect: [200, 201, 409],
    show: (json) => (json.data ? pick(json.data, ["id", "deadline_at", "time_limit_seconds", "remaining_seconds"]) : json),
  });
  if (attempt.status === 409) {
    t.check(attempt.error === "max_exam_attempts_reached", "the only refusal expected: every attempt is used");
    t.note(`No attempt left for Omar (${attempt.error}): the earlier runs used them up.`);
    return;
  }
  const ea = attempt.data.id;
  const extended = await t.step("Extend by 300 s", {
    method: "POST",
    who: paul,
    path: `/t/exam-attempts/${ea}/extend`,
    body: { add_seconds: 300, reason: "Tour: the projector failed" },
    show: (json) => pick(json.data, ["deadline_at", "time_limit_seconds", "remaining_seconds"]),
  });
  t.check(Date.parse(extended.data.deadline_at) - Date.parse(attempt.data.deadline_at) === 300_000, "the deadline moved by 5 minutes");
  await t.step("Omar submits", { method: "POST", who: omar, path: `/t/exam-attempts/${ea}/submit`, show: (json) => pick(json.data, ["status", "final_score_pct"]) });
}
