import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "a roster import: the dry run's plan, its rows and errors.csv, the apply, and the same file again changing nothing";

/**
 * Ada uploads a users file (semicolons, Russian headers) with a new student, an existing one, a
 * renamed one and two bad rows; reads the plan, its error rows and errors.csv; applies it skipping
 * the errors; uploads the same file again, which now plans nothing to create. The new student's
 * address carries the run's time, so every run creates one student and Timur's name goes back to
 * the seed's at the end.
 */
export async function run(t) {
  const { admin, student1, student2 } = PEOPLE;
  const ada = await t.login(admin);
  const fresh = `tour.${Date.now()}@demo.test`;
  const csv = [
    "Почта;Имя;Фамилия;Роль",
    `${fresh};Nina;Tour;студент`,
    `${student1.email};${student1.firstName};${student1.lastName};`,
    `${student2.email};Timofey;${student2.lastName};`,
    "not-an-email;Bad;Row;",
    `${fresh};Nina;Twice;`,
  ].join("\n");
  const csvHeaders = { "content-type": "text/csv; charset=utf-8" };

  t.section(`${label(admin)} uploads a roster: the dry run writes only the plan`);
  const plan = await t.step("Upload (kind=users)", {
    method: "POST",
    who: ada,
    path: "/t/imports?kind=users",
    rawBody: csv,
    headers: csvHeaders,
    expect: 201,
    show: (json) => pick(json.data, ["id", "status", "counts", "plan_hash", "expires_at"]),
  });
  t.check(plan.data.counts.create === 1 && plan.data.counts.update === 1 && plan.data.counts.unchanged === 1 && plan.data.counts.error === 2, "one create, one update, one unchanged, two errors");
  const id = plan.data.id;
  await t.step("The error rows", { who: ada, path: `/t/imports/${id}/rows?action=error`, show: (json) => json.data.rows });
  const errors = await t.step("errors.csv: the bad rows as written, plus why", { who: ada, path: `/t/imports/${id}/errors.csv` });
  t.check(String(errors).includes("duplicate_in_file"), "the repeated address is reported");

  try {
    await applyAndRepeat(t, { ada, id, plan, csv, csvHeaders });
  } finally {
    await t.step(`${student2.firstName}'s name back to the seed's`, {
      method: "PUT",
      who: ada,
      path: `/t/users/${student2.id}`,
      body: { first_name: student2.firstName },
      show: (json) => pick(json.data, ["first_name", "last_name"]),
    });
  }
}

async function applyAndRepeat(t, { ada, id, plan, csv, csvHeaders }) {
  t.section("Apply the plan");
  await t.step("Without skip_errors: refused", { method: "POST", who: ada, path: `/t/imports/${id}/apply`, body: { plan_hash: plan.data.plan_hash }, expect: 409 });
  const applied = await t.step("With skip_errors", {
    method: "POST",
    who: ada,
    path: `/t/imports/${id}/apply`,
    body: { plan_hash: plan.data.plan_hash, skip_errors: true },
    show: (json) => pick(json.data, ["status", "applied_at", "result"]),
  });
  t.check(applied.data.result.created === 1, "one student created, invited by email (see the dev mailbox)");

  t.section("The same file again plans nothing new");
  const again = await t.step("Upload it again", {
    method: "POST",
    who: ada,
    path: "/t/imports?kind=users",
    rawBody: csv,
    headers: csvHeaders,
    expect: 201,
    show: (json) => pick(json.data, ["counts"]),
  });
  t.check(again.data.counts.create === 0 && again.data.counts.update === 0, "nothing to create or update");
}
