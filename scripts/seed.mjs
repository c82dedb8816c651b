/**
 * Idempotent demo data for local development (`npm run seed`, also run by `npm run dev`).
 *
 * Every row has a fixed id and is written with an upsert that restores only what the demo logins
 * depend on, so a second run changes nothing and a drifted demo (school suspended, password reset,
 * curator moved) is put back. Each area's rows are a section in scripts/seed/; later areas add a
 * section module and append it to `sections`.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { applyMigrations, CliError, configuredDevPort, CONTROL_DB, executeSql, passwordPepper, readDevVars, runMain } from "./lib/project.mjs";
import { accommodations } from "./seed/accommodations.mjs";
import { activityDays } from "./seed/activity-days.mjs";
import { enrollmentActivity } from "./seed/enrollment-activity.mjs";
import { imports } from "./seed/imports.mjs";
import { webhooks } from "./seed/webhooks.mjs";
import { certificates } from "./seed/certificates.mjs";
import { assignments } from "./seed/assignments.mjs";
import { audit } from "./seed/audit.mjs";
import { courses, paths } from "./seed/courses.mjs";
import { DEMO, DEMO_PASSWORD, TRIAL } from "./seed/demo.mjs";
import { enrollments } from "./seed/enrollments.mjs";
import { media, putDemoObjects } from "./seed/media.mjs";
import { notifications } from "./seed/notifications.mjs";
import { exams, quizzes } from "./seed/quizzes.mjs";
import { forms } from "./seed/forms.mjs";
import { itemAnalysis } from "./seed/item-analysis.mjs";
import { rating } from "./seed/rating.mjs";
import { billing, groups, people, school } from "./seed/school.mjs";

export { DEMO, DEMO_PASSWORD, TRIAL };

/**
 * In dependency order. A section returns (or resolves to) the demo school's statements as an array,
 * or an object of statements per D1 binding (`DB` for the control rows: schools, tariffs, payments;
 * `DEMO.shard` / `TRIAL.shard` for each school's own rows).
 */
export const sections = [school, people, groups, billing, media, notifications, courses, paths, quizzes, exams, forms, itemAnalysis, assignments, enrollments, rating, accommodations, certificates, imports, audit, webhooks, activityDays, enrollmentActivity];

/** The accounts `npm run dev` prints; all share DEMO_PASSWORD. */
export function demoLogins() {
  const [s1, s2, s3, s4] = DEMO.students;
  return [
    { role: "admin", email: DEMO.admin.email, note: "a push device; a sent campaign; six entries in the audit log" },
    { role: "curator", email: DEMO.restrictedCurator.email, note: `restricted: only can_manage_students; "Morning group" + ${s3.email}` },
    { role: "curator", email: DEMO.curator.email, note: `all six permissions; curates "Evening group"` },
    { role: "student", email: s1.email, note: `"Morning group" (enrolled in the demo course); push devices (phone, tablet) and a push history; demo course: module 1 done` },
    { role: "student", email: s2.email, note: `"Morning group"; pushes switched off; demo course: just started` },
    { role: "student", email: s3.email, note: `"Evening group"; individual curator: ${DEMO.restrictedCurator.email}; demo course completed, certificate 0DEM-0000-CERT-0041` },
    { role: "student", email: s4.email, note: `"Evening group"; not enrolled yet (the courses tour enrolls him)` },
  ]
    .map((login) => ({ ...login, subdomain: DEMO.subdomain }))
    .concat([{ role: "admin", email: TRIAL.admin.email, note: `school "${TRIAL.subdomain}": trial, 5 days left`, subdomain: TRIAL.subdomain }])
    .map((login) => ({ ...login, password: DEMO_PASSWORD }));
}

/** The seed's SQL per D1 binding, the control database first (a school's rows need its tenants row). */
export async function buildSeedSql({ now = Date.now(), pepper, pushTokenKey = null }) {
  const context = { now, pepper, pushTokenKey };
  const parts = new Map([[CONTROL_DB, []]]);
  for (const section of sections) {
    const result = await section(context);
    const byBinding = Array.isArray(result) ? { [DEMO.shard]: result } : result;
    for (const [binding, statements] of Object.entries(byBinding)) {
      if (!parts.has(binding)) parts.set(binding, []);
      parts.get(binding).push(`-- ${section.name}`, ...statements);
    }
  }
  return new Map([...parts].map(([binding, lines]) => [binding, `${lines.join("\n")}\n`]));
}

/** Writes the demo rows into the local D1 databases (or the deployed ones with `{ remote: true }`). */
export async function seed(target = {}) {
  const sqlByBinding = await buildSeedSql({ pepper: passwordPepper(target), pushTokenKey: pushTokenKeyOf(target) });
  try {
    for (const [binding, sql] of sqlByBinding) await executeSql(binding, sql, target);
    await putDemoObjects(target);
  } catch (err) {
    if (!/UNIQUE constraint failed/.test(err.output ?? "")) throw err;
    throw new CliError(
      `${err.message}\nA school "${DEMO.subdomain}" or a demo email created by hand holds a name the fixed demo rows need. ` +
        `Locally, delete .wrangler/state to start from an empty database.`,
    );
  }
}

/** The key push tokens are sealed with: local from .dev.vars, a deployed one only if handed in by env var. */
function pushTokenKeyOf(target) {
  if (target.remote) return process.env.PUSH_TOKEN_KEY ?? null;
  return readDevVars().PUSH_TOKEN_KEY ?? null;
}

export function printDemoLogins(baseUrl) {
  const logins = demoLogins();
  const width = Math.max(...logins.map((l) => l.email.length));
  console.log(`\nDemo school "Demo School" (subdomain ${DEMO.subdomain}), password for every account: ${DEMO_PASSWORD}`);
  for (const login of logins) {
    console.log(`  ${login.role.padEnd(8)} ${login.email.padEnd(width)}  ${login.note}`.trimEnd());
  }
  console.log(
    `\nSign in:  curl -s ${baseUrl}/api/v1/auth/login -H 'content-type: application/json' \\\n` +
      `            -d '{"email":"${DEMO.admin.email}","password":"${DEMO_PASSWORD}","subdomain":"${DEMO.subdomain}"}'\n` +
      `Tours:    npm run tour -- --list   (docs/tours.md)\n` +
      `API reference: ${baseUrl}/api/v1/docs\n`,
  );
}

async function main() {
  const { values } = parseArgs({
    options: { remote: { type: "boolean", default: false }, "persist-to": { type: "string" }, print: { type: "boolean", default: false } },
  });
  const target = { remote: values.remote, persistTo: values["persist-to"] };
  if (values.print) {
    const sqlByBinding = await buildSeedSql({ pepper: passwordPepper(target), pushTokenKey: pushTokenKeyOf(target) });
    for (const [binding, sql] of sqlByBinding) process.stdout.write(`-- ===== ${binding} =====\n${sql}`);
    return;
  }
  await applyMigrations(target);
  await seed(target);
  console.log(`Demo data written (${target.remote ? "remote" : "local"} D1).`);
  printDemoLogins(`http://localhost:${configuredDevPort()}`);
  console.log(`(That is the port \`npm run dev\` prefers; it prints the one it actually uses when it starts.)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) runMain(main);
