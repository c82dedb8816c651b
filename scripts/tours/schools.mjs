import { spawnSync } from "node:child_process";
import path from "node:path";
import { ROOT } from "../lib/project.mjs";
import { DEMO } from "../seed/demo.mjs";
import { PEOPLE, TourFailure, pick } from "./lib/tour.mjs";

export const summary = "branding, the superadmin's tariffs and schools, activation by tariff, extension, a suspension and its lift";

const SUPERADMIN = { email: "root@example.com", firstName: "Root", password: "superpass123" };

/**
 * Creates (or resets) the superadmin of the README's "Superadmin bootstrap" with the script, so it
 * needs the server's local database: run it against `npm run dev` (or pass --persist-to). Makes a
 * tariff and a school with new names, deletes the tariff and lifts the suspension it puts on the demo school.
 */
export async function run(t) {
  t.section("The superadmin: created, or its password reset (npm run superadmin)");
  const args = [path.join(ROOT, "scripts", "superadmin.mjs"), "--email", SUPERADMIN.email, "--password", SUPERADMIN.password];
  if (t.persistTo) args.push("--persist-to", t.persistTo);
  console.log(`$ npm run superadmin -- --email ${SUPERADMIN.email} --password ${SUPERADMIN.password}${t.persistTo ? ` --persist-to ${t.persistTo}` : ""}`);
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });
  if (result.status !== 0) throw new TourFailure(`npm run superadmin failed:\n${result.stdout}${result.stderr}`);
  const root = await t.login(SUPERADMIN, { subdomain: "", password: SUPERADMIN.password, title: "Sign in as the superadmin (empty subdomain)" });

  t.section("Public branding, and the tariff catalogue");
  await t.step("The demo school's branding (no auth)", { path: "/public/tenant?subdomain=demo" });
  await t.step("Active tariffs", { who: root, path: "/admin/tariffs?active=true", show: (json) => json.data.map((x) => pick(x, ["title", "price_cents", "duration_days"])) });

  t.section("A tariff and a new school (pending, on a 14-day trial)");
  const tariff = await t.step("A monthly tariff", { method: "POST", who: root, path: "/admin/tariffs", body: { title: `Monthly ${t.runId}`, price_cents: 30000000, duration_days: 30 }, expect: 201 });
  const slug = `north${t.runId}`;
  const school = await t.step("North School", { method: "POST", who: root, path: "/admin/tenants", body: { title: "North School", slug, subdomain: slug }, expect: 201 });
  const schoolId = school.data.id;

  t.section("Activate by tariff × periods: paid, 90 days added after the running trial, the school becomes active");
  await t.step("Activate for three periods", { method: "POST", who: root, path: `/admin/tenants/${schoolId}/activate`, body: { tariff_id: tariff.data.id, periods: 3, reference: "INV-001" }, expect: [200, 201] });
  t.note('Free-form instead (never mixed with tariff_id/periods): {"days":30,"amount_cents":0,"title":"Pilot"}');
  await t.step("A goodwill week", { method: "POST", who: root, path: `/admin/tenants/${schoolId}/extend`, body: { days: 7, notes: "goodwill week" }, expect: [200, 201], show: (json) => json.data.applied_expires_at });
  await t.step("The school", { who: root, path: `/admin/tenants/${schoolId}`, show: (json) => ({ ...pick(json.data, ["plan_state", "expires_at", "days_remaining"]), current_tariff: json.data.current_tariff?.title }) });
  await t.step("Found by search", { who: root, path: `/admin/tenants?search=${slug}`, show: (json) => json.data.items });
  await t.step("Its payments", { who: root, path: `/admin/tenants/${schoolId}/payments?limit=10`, show: (json) => json.data.items.map((p) => pick(p, ["tariff_title_snapshot", "amount_cents", "currency", "days"])) });

  t.section("A manual suspension of the demo school: the school read stays open, billing/me closes");
  const ada = await t.login(PEOPLE.admin);
  try {
    await t.step("Suspend the demo school", { method: "POST", who: root, path: `/admin/tenants/${DEMO.tenantId}/suspend`, body: { reason: "tour" } });
    await t.step("Ada reads her school", { who: ada, path: "/t/tenant", show: (json) => json.data.plan_state });
    await t.step("Ada's billing is closed", { who: ada, path: "/t/billing/me", expect: 403 });
  } finally {
    await t.step("Lift the suspension", { method: "POST", who: root, path: `/admin/tenants/${DEMO.tenantId}/unsuspend` });
  }
  await t.step("Ada's billing again", { who: ada, path: "/t/billing/me", show: (json) => pick(json.data, ["plan_state", "days_remaining"]) });

  t.section("Put the catalogue back: the tour's tariff goes (payments keep its title in their snapshot)");
  await t.step("Delete the tariff", { method: "DELETE", who: root, path: `/admin/tariffs/${tariff.data.id}` });
}
