import { PEOPLE, label, labelOf } from "./lib/tour.mjs";

export const summary = "the school's audit log: the newest staff changes, filtered by action, by target and by actor; staff-only";

/** One line per entry: when, who, what, on which target, and the fields it changed (before → after). */
const entries = (json) => ({
  total: json.data.total,
  entries: json.data.entries.map((e) => ({ at: e.at, actor: e.actor?.name ?? "system", action: e.action, target: `${e.target_type} ${e.target_id}`, changes: e.changes })),
});

/** Reads only: the seed's entries (scripts/seed/audit.mjs) and whatever the other tours wrote, so a second run shows the same steps. */
export async function run(t) {
  const { admin, curator, student3, student4 } = PEOPLE;
  const ada = await t.login(admin);
  const paul = await t.login(curator);
  const omar = await t.login(student4);

  t.section(`${label(admin)} reads the school's log, newest first`);
  await t.step("The latest five entries", { who: ada, path: "/t/audit-log?limit=5", show: entries });

  t.section("Who changed the device policy, and how");
  await t.step("Filter by action", { who: ada, path: "/t/audit-log?action=device_policy.updated", show: entries });

  t.section(`Everything done to ${labelOf(student3)} account`);
  await t.step("Filter by target", { who: ada, path: `/t/audit-log?target_type=user&target_id=${student3.id}`, show: entries });
  t.section(`What ${label(admin)} did in the last 30 days`);
  const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
  await t.step("Filter by actor and time", { who: ada, path: `/t/audit-log?actor_id=${admin.id}&from=${encodeURIComponent(since)}&limit=3`, show: entries });

  t.section("The log is the admin's");
  await t.step(`${label(student4)} is refused`, { who: omar, path: "/t/audit-log", expect: 403 });
  await t.step(`So is ${label(curator)}, a curator with every permission`, { who: paul, path: "/t/audit-log", expect: 403 });
}
