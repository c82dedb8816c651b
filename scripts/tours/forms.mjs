import { FORMS } from "../seed/forms.mjs";
import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "random quiz forms: every attempt draws its own questions and order, stored with the attempt; the quiz's item analysis";

/**
 * The seed's "Random practice" quiz draws 3 of its 6 questions per attempt, questions and answers
 * shuffled (docs/decisions/quizzes.md, "Random forms"). Paul reads the settings, takes two attempts
 * (staff may attempt any quiz), reads one twice to see the same form, and submits both; a save of a
 * question the form left out is refused.
 */
export async function run(t) {
  const { curator } = PEOPLE;
  const paul = await t.login(curator);

  t.section(`${label(curator)} reads the quiz's form settings`);
  await t.step("The quiz", {
    who: paul,
    path: `/t/quizzes/${FORMS.quiz}`,
    show: (json) => ({ ...pick(json.data, ["title", "questions_per_attempt", "shuffle_questions", "shuffle_answers"]), questions: json.data.questions.length }),
  });
  await t.step("More questions per attempt than it has: refused", {
    method: "PATCH",
    who: paul,
    path: `/t/quizzes/${FORMS.quiz}`,
    body: { questions_per_attempt: 7 },
    expect: 400,
  });

  t.section("Each attempt draws its own form and keeps it");
  const forms = [];
  for (const n of [1, 2]) {
    const begun = await t.step(`Attempt ${n}: start (or resume)`, {
      method: "POST",
      who: paul,
      path: "/t/attempts",
      body: { quiz_id: FORMS.quiz },
      expect: [200, 201],
      show: (json) => pick(json.data, ["id", "status", "max_score"]),
    });
    const id = begun.data.id;
    const read = await t.step(`Attempt ${n}: its questions`, {
      who: paul,
      path: `/t/attempts/${id}`,
      show: (json) => json.data.questions.map((q) => ({ prompt: q.prompt, answers: q.answers.map((a) => a.text) })),
    });
    const again = await t.step(`Attempt ${n}: read again, the same form`, { who: paul, path: `/t/attempts/${id}`, show: (json) => json.data.questions.map((q) => q.prompt) });
    t.check(JSON.stringify(again.data.questions.map((q) => q.id)) === JSON.stringify(read.data.questions.map((q) => q.id)), "the same questions in the same order");
    const drawn = new Set(read.data.questions.map((q) => q.id));
    const outside = FORMS.questions.find((q) => !drawn.has(q));
    await t.step(`Attempt ${n}: a question the form left out`, {
      method: "POST",
      who: paul,
      path: `/t/attempts/${id}/answers`,
      body: { answers: [{ question_id: outside, payload: { answer_ids: [] } }] },
      expect: 400,
    });
    await t.step(`Attempt ${n}: submit`, { method: "POST", who: paul, path: `/t/attempts/${id}/submit`, show: (json) => pick(json.data, ["status", "score", "max_score"]) });
    forms.push([...drawn].join(","));
  }
  t.note(forms[0] === forms[1] ? "Both attempts drew the same 3 questions this time (1 chance in 20)." : "The two attempts drew different questions.");

  // The seed's 48 student attempts (scripts/seed/item-analysis.mjs); Paul's own attempts are staff ones and do not count.
  t.section("Item analysis over the students' attempts (docs/decisions/item-analysis.md)");
  await t.step("Facility, discrimination, point-biserial and option shares per question; KR-20 is null with random forms", {
    who: paul,
    path: `/t/quizzes/${FORMS.quiz}/item-analysis`,
    show: (json) => ({
      ...pick(json.data, ["attempts", "kr20", "computed_at"]),
      items: json.data.items.map((item) => ({
        ...pick(item, ["n", "facility", "discrimination", "point_biserial", "insufficient_data"]),
        shares: item.options?.map((o) => o.share),
      })),
    }),
  });
}
