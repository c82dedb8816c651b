import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "a personal-data export: asked for, built by the queue, read with its signed link and downloaded; the 24-hour limit";

const fields = ["id", "user_id", "status", "ready_at", "expires_at", "size_bytes"];

/**
 * Sara asks for her own export (one per 24 hours: a second run answers 429 with Retry-After, which
 * the tour accepts and says so). Ada then exports a student created for this run, so the whole
 * flow shows every time: pending, ready through the local queue, the signed link, the file, and
 * Timur not seeing Ada's export. The run's student is deleted at the end.
 */
export async function run(t) {
  const { admin, student1, student2 } = PEOPLE;
  const ada = await t.login(admin);
  const sara = await t.login(student1);
  const timur = await t.login(student2);

  t.section(`${label(student1)} asks for everything the school holds about her`);
  const own = await t.step("Her export", { method: "POST", who: sara, path: "/t/me/data-export", expect: [202, 429] });
  if (own.status === 429) {
    t.check(own.error === "export_rate_limited", "the only refusal expected: one export per 24 hours");
    t.note(`An earlier run asked already; the next export may start in ${own.headers.get("retry-after")} s.`);
  } else {
    await t.poll("Her export, once the queue built it", { who: sara, path: `/t/data-exports/${own.data.id}`, show: (json) => pick(json.data, fields) }, (json) => json.data?.status !== "pending");
  }

  t.section(`${label(admin)} exports a student's data on their behalf`);
  const created = await t.step("A student for this run", {
    method: "POST",
    who: ada,
    path: "/t/users",
    body: { email: `export.${t.runId}@demo.test`, password: "welcome123", first_name: "Export", last_name: "Tour", role: "student" },
    expect: 201,
    show: (json) => pick(json.data, ["id", "email"]),
  });
  const student = created.data.id;
  try {
    const asked = await t.step("Ask for the export", { method: "POST", who: ada, path: `/t/users/${student}/data-export`, expect: 202 });
    await t.step("Again the same day", { method: "POST", who: ada, path: `/t/users/${student}/data-export`, expect: 429 });
    t.check(Number(t.lastHeaders.get("retry-after")) > 86_000, "Retry-After says when the next one may start");
    const ready = await t.poll(
      "The export, once the queue built it",
      { who: ada, path: `/t/data-exports/${asked.data.id}`, show: (json) => ({ ...pick(json.data, fields), download_url: "(signed, one hour)" }) },
      (json) => json.data?.status === "ready",
    );
    const link = new URL(ready.data.download_url);
    const file = await t.step("Download the file through the link (no token)", {
      path: `${link.pathname}${link.search}`,
      absolute: true,
      show: (json) => ({ sources: json.sources, profile: pick(json.profile, ["id", "email", "role"]), sessions: json.tables.sessions.length }),
    });
    t.check(file.user_id === student && file.sources.includes("quiz_attempt_answers"), "the document is the student's and lists every table it read");
    await t.step(`${label(student2)} cannot read Ada's export`, { who: timur, path: `/t/data-exports/${asked.data.id}`, expect: 404 });
  } finally {
    await t.step("Remove the run's student", { method: "DELETE", who: ada, path: `/t/users/${student}` });
  }
}
