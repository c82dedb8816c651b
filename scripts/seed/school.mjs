import { hashPassword } from "../lib/password.mjs";
import { upsert } from "../lib/sql.mjs";
import { curatorStudentsSql } from "../lib/curator-students.mjs";
import { CONTROL, DAY_MS, DEMO, DEMO_PASSWORD, DEMO_PAYMENT_ID, TRIAL, id } from "./demo.mjs";

/** The demo school and the trial school: tariffs, people, groups and billing. */

const TARIFFS = [
  { id: id(0x601), title: "Start", description: "Up to 50 students", price_cents: 15_000_000, duration_days: 30, is_active: true, sort_order: 10 },
  { id: id(0x602), title: "Standard", description: null, price_cents: 35_000_000, duration_days: 30, is_active: true, sort_order: 20 },
  { id: id(0x603), title: "Annual", description: null, price_cents: 350_000_000, duration_days: 365, is_active: true, sort_order: 30 },
  // Inactive, to show 400 `tariff is inactive` on activation.
  { id: id(0x604), title: "Legacy 2024", description: "No longer sold", price_cents: 10_000_000, duration_days: 30, is_active: false, sort_order: 99 },
];

const ALL_PERMISSIONS = [
  "can_manage_courses",
  "can_manage_students",
  "can_manage_groups",
  "can_view_analytics",
  "can_manage_exams",
  "can_manage_notifications",
];

/**
 * The demo school (a control row naming its shard): active and paid; its expiry is pushed out again
 * once it is under 30 days away.
 */
export function school({ now }) {
  const t = '"tenants"';
  const renewBefore = now + 30 * DAY_MS;
  return {
    [CONTROL]: [
      upsert(
        "tenants",
        {
          id: DEMO.tenantId,
          title: "Demo School",
          slug: DEMO.subdomain,
          subdomain: DEMO.subdomain,
          shard: DEMO.shard,
          status: "active",
          plan_state: "paid",
          expires_at: now + 365 * DAY_MS,
          suspended_manually: false,
          suspended_at: null,
          suspend_reason: null,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        },
        {
          // The shard too: the seed writes the school's rows there, so the row must point to it.
          restore: ["subdomain", "shard", "status", "plan_state", "expires_at", "suspended_manually", "suspended_at", "suspend_reason", "deleted_at"],
          touch: "updated_at",
          expressions: {
            expires_at: `CASE WHEN ${t}."expires_at" IS NULL OR ${t}."expires_at" < ${renewBefore} THEN excluded."expires_at" ELSE ${t}."expires_at" END`,
          },
        },
      ),
    ],
  };
}

/** The admin, a restricted curator (manage_students only), a privileged curator (all six) and four students. */
export async function people({ now, pepper }) {
  const student3 = DEMO.students[2];
  const accounts = [
    { ...DEMO.admin, role: "admin" },
    { ...DEMO.restrictedCurator, role: "curator", permissions: ["can_manage_students"] },
    { ...DEMO.curator, role: "curator", permissions: ALL_PERMISSIONS },
    ...DEMO.students.map((s) => ({ ...s, role: "student", individualCuratorId: s === student3 ? DEMO.restrictedCurator.id : null })),
  ];
  const statements = [];
  for (const account of accounts) {
    // A salt derived from the id keeps the hash identical between runs, so re-seeding is a no-op.
    const passwordHash = await hashPassword(DEMO_PASSWORD, pepper, { saltSeed: `lms-demo-seed:${account.id}` });
    statements.push(
      upsert(
        "users",
        {
          id: account.id,
          tenant_id: DEMO.tenantId,
          email: account.email,
          password_hash: passwordHash,
          first_name: account.firstName,
          last_name: account.lastName,
          role: account.role,
          is_active: true,
          email_verified_at: now,
          individual_curator_id: account.individualCuratorId ?? null,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        },
        {
          restore: ["tenant_id", "email", "password_hash", "role", "is_active", "individual_curator_id", "deleted_at"],
          touch: "updated_at",
        },
      ),
    );
    if (account.permissions) {
      const flags = Object.fromEntries(ALL_PERMISSIONS.map((p) => [p, account.permissions.includes(p)]));
      statements.push(
        upsert(
          "curator_permissions",
          { id: account.permissionsId, tenant_id: DEMO.tenantId, user_id: account.id, ...flags, created_at: now, updated_at: now },
          { key: ["user_id"], restore: ["tenant_id", ...ALL_PERMISSIONS], touch: "updated_at" },
        ),
      );
    }
  }
  return statements;
}

/** One group of two students, taught by the restricted curator (so its members are in that curator's scope). */
export function groups({ now }) {
  const [first, second] = DEMO.students;
  const membership = (student) =>
    upsert("group_members", { tenant_id: DEMO.tenantId, group_id: DEMO.groupId, user_id: student.id, joined_at: now }, { key: ["group_id", "user_id"] });
  const [, , third, fourth] = DEMO.students;
  const eveningMembership = (student) =>
    upsert("group_members", { tenant_id: DEMO.tenantId, group_id: DEMO.eveningGroupId, user_id: student.id, joined_at: now }, { key: ["group_id", "user_id"] });
  return [
    upsert(
      "groups",
      { id: DEMO.groupId, tenant_id: DEMO.tenantId, name: "Morning group", description: "Weekday mornings, 9:00-12:00.", logo: null, created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null },
      { restore: ["tenant_id", "deleted_at"], touch: "updated_at" },
    ),
    membership(first),
    membership(second),
    upsert(
      "group_curators",
      { tenant_id: DEMO.tenantId, group_id: DEMO.groupId, curator_id: DEMO.restrictedCurator.id, created_at: now },
      { key: ["group_id", "curator_id"] },
    ),
    upsert(
      "groups",
      { id: DEMO.eveningGroupId, tenant_id: DEMO.tenantId, name: "Evening group", description: "Weekday evenings, 18:00-21:00.", logo: DEMO.logoAssetId, created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null },
      { restore: ["tenant_id", "deleted_at"], touch: "updated_at" },
    ),
    eveningMembership(third),
    eveningMembership(fourth),
    upsert(
      "group_curators",
      { tenant_id: DEMO.tenantId, group_id: DEMO.eveningGroupId, curator_id: DEMO.curator.id, created_at: now },
      { key: ["group_id", "curator_id"] },
    ),
    // After the people and the groups: the curator analytics scope of what these rows say.
    curatorStudentsSql(DEMO.tenantId),
  ];
}

/**
 * The tariff catalogue, the demo school's annual payment (so unsuspending it restores `paid`), and
 * an active trial school five days from expiry (on the other shard) with its admin.
 */
export async function billing({ now, pepper }) {
  const control = TARIFFS.map((tariff) =>
    upsert("tariffs", { ...tariff, created_at: now, updated_at: now, deleted_at: null }, { restore: ["is_active", "deleted_at"], touch: "updated_at" }),
  );
  control.push(
    `UPDATE "tenants" SET "current_tariff_id" = '${TARIFFS[2].id}' WHERE "id" = '${DEMO.tenantId}' AND "current_tariff_id" IS NULL;`,
    `INSERT OR IGNORE INTO "payments" ("id", "tenant_id", "tariff_id", "tariff_title_snapshot", "amount_cents", "currency", "days", "method", "reference", "notes", "applied_expires_at", "created_by_user_id", "created_at")
SELECT '${DEMO_PAYMENT_ID}', "id", '${TARIFFS[2].id}', 'Annual', 350000000, 'UZS', 365, 'cash', 'DEMO-SEED', NULL, "expires_at", NULL, ${now} FROM "tenants" WHERE "id" = '${DEMO.tenantId}';`,
  );
  const t = '"tenants"';
  control.push(
    upsert(
      "tenants",
      {
        id: TRIAL.tenantId,
        title: "Trial Academy",
        slug: TRIAL.subdomain,
        subdomain: TRIAL.subdomain,
        shard: TRIAL.shard,
        status: "active",
        plan_state: "trial",
        expires_at: now + 5 * DAY_MS,
        suspended_manually: false,
        timezone: "Asia/Tashkent",
        created_at: now,
        updated_at: now,
        deleted_at: null,
      },
      {
        restore: ["subdomain", "shard", "status", "expires_at", "deleted_at"],
        touch: "updated_at",
        expressions: {
          expires_at: `CASE WHEN ${t}."expires_at" IS NULL OR ${t}."expires_at" < ${now + DAY_MS} THEN excluded."expires_at" ELSE ${t}."expires_at" END`,
        },
      },
    ),
  );
  const trialAdmin = upsert(
    "users",
    {
      id: TRIAL.admin.id,
      tenant_id: TRIAL.tenantId,
      email: TRIAL.admin.email,
      password_hash: await hashPassword(DEMO_PASSWORD, pepper, { saltSeed: `lms-demo-seed:${TRIAL.admin.id}` }),
      first_name: TRIAL.admin.firstName,
      last_name: TRIAL.admin.lastName,
      role: "admin",
      is_active: true,
      email_verified_at: now,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    },
    { restore: ["tenant_id", "email", "password_hash", "role", "is_active", "deleted_at"], touch: "updated_at" },
  );
  return { [CONTROL]: control, [TRIAL.shard]: [trialAdmin] };
}
