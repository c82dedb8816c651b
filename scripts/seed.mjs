/**
 * Idempotent demo data for local development (`npm run seed`, also run by `npm run dev`).
 *
 * Every row has a fixed id and is written with an upsert that restores only what the demo logins
 * depend on, so a second run changes nothing and a drifted demo (school suspended, password reset,
 * curator moved) is put back. Later areas append a section function to `sections`.
 */
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { deflateSync } from "node:zlib";
import { parseArgs } from "node:util";
import { applyMigrations, CliError, configuredDevPort, executeSql, passwordPepper, readDevVars, runMain, runWrangler } from "./lib/project.mjs";
import { hashPassword } from "./lib/password.mjs";
import { literal, upsert } from "./lib/sql.mjs";

const DAY_MS = 86_400_000;

/** Fixed UUIDv7-shaped ids (timestamp 2025-01-01), recognisable in logs and stable across runs. */
const id = (n) => `01941f29-7c00-7000-8000-${n.toString(16).padStart(12, "0")}`;

export const DEMO_PASSWORD = "demo12345";

export const DEMO = {
  subdomain: "demo",
  tenantId: id(0x001),
  admin: { id: id(0x101), email: "admin@demo.test", firstName: "Ada", lastName: "Admin" },
  restrictedCurator: { id: id(0x201), permissionsId: id(0x501), email: "curator.restricted@demo.test", firstName: "Rita", lastName: "Restricted" },
  curator: { id: id(0x202), permissionsId: id(0x502), email: "curator@demo.test", firstName: "Paul", lastName: "Privileged" },
  students: [
    { id: id(0x301), email: "student1@demo.test", firstName: "Sara", lastName: "Student" },
    { id: id(0x302), email: "student2@demo.test", firstName: "Timur", lastName: "Student" },
    { id: id(0x303), email: "student3@demo.test", firstName: "Lola", lastName: "Student" },
    { id: id(0x304), email: "student4@demo.test", firstName: "Omar", lastName: "Student" },
  ],
  groupId: id(0x401),
  eveningGroupId: id(0x402),
  logoAssetId: id(0x701),
  handoutAssetId: id(0x702),
};

/** A second school on a short trial, to try activation and expiry on. */
export const TRIAL = {
  subdomain: "trial",
  tenantId: id(0x002),
  admin: { id: id(0x102), email: "admin@trial.test", firstName: "Tanya", lastName: "Trial" },
};

const TARIFFS = [
  { id: id(0x601), title: "Start", description: "Up to 50 students", price_cents: 15_000_000, duration_days: 30, is_active: true, sort_order: 10 },
  { id: id(0x602), title: "Standard", description: null, price_cents: 35_000_000, duration_days: 30, is_active: true, sort_order: 20 },
  { id: id(0x603), title: "Annual", description: null, price_cents: 350_000_000, duration_days: 365, is_active: true, sort_order: 30 },
  // Inactive, to show 400 `tariff is inactive` on activation.
  { id: id(0x604), title: "Legacy 2024", description: "No longer sold", price_cents: 10_000_000, duration_days: 30, is_active: false, sort_order: 99 },
];
const DEMO_PAYMENT_ID = id(0x611);

const ALL_PERMISSIONS = [
  "can_manage_courses",
  "can_manage_students",
  "can_manage_groups",
  "can_view_analytics",
  "can_manage_exams",
  "can_manage_notifications",
];

/** The demo school: active and paid; its expiry is pushed out again once it is under 30 days away. */
function school({ now }) {
  const t = '"tenants"';
  const renewBefore = now + 30 * DAY_MS;
  return [
    upsert(
      "tenants",
      {
        id: DEMO.tenantId,
        title: "Demo School",
        slug: DEMO.subdomain,
        subdomain: DEMO.subdomain,
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
        restore: ["subdomain", "status", "plan_state", "expires_at", "suspended_manually", "suspended_at", "suspend_reason", "deleted_at"],
        touch: "updated_at",
        expressions: {
          expires_at: `CASE WHEN ${t}."expires_at" IS NULL OR ${t}."expires_at" < ${renewBefore} THEN excluded."expires_at" ELSE ${t}."expires_at" END`,
        },
      },
    ),
  ];
}

/** The admin, a restricted curator (manage_students only), a privileged curator (all six) and four students. */
async function people({ now, pepper }) {
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
function groups({ now }) {
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
  ];
}

/**
 * The tariff catalogue, the demo school's annual payment (so unsuspending it restores `paid`), and
 * an active trial school five days from expiry with its admin.
 */
async function billing({ now, pepper }) {
  const statements = TARIFFS.map((tariff) =>
    upsert("tariffs", { ...tariff, created_at: now, updated_at: now, deleted_at: null }, { restore: ["is_active", "deleted_at"], touch: "updated_at" }),
  );
  statements.push(
    `UPDATE "tenants" SET "current_tariff_id" = '${TARIFFS[2].id}' WHERE "id" = '${DEMO.tenantId}' AND "current_tariff_id" IS NULL;`,
    `INSERT OR IGNORE INTO "payments" ("id", "tenant_id", "tariff_id", "tariff_title_snapshot", "amount_cents", "currency", "days", "method", "reference", "notes", "applied_expires_at", "created_by_user_id", "created_at")
SELECT '${DEMO_PAYMENT_ID}', "id", '${TARIFFS[2].id}', 'Annual', 350000000, 'UZS', 365, 'cash', 'DEMO-SEED', NULL, "expires_at", NULL, ${now} FROM "tenants" WHERE "id" = '${DEMO.tenantId}';`,
  );
  const t = '"tenants"';
  statements.push(
    upsert(
      "tenants",
      {
        id: TRIAL.tenantId,
        title: "Trial Academy",
        slug: TRIAL.subdomain,
        subdomain: TRIAL.subdomain,
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
        restore: ["subdomain", "status", "expires_at", "deleted_at"],
        touch: "updated_at",
        expressions: {
          expires_at: `CASE WHEN ${t}."expires_at" IS NULL OR ${t}."expires_at" < ${now + DAY_MS} THEN excluded."expires_at" ELSE ${t}."expires_at" END`,
        },
      },
    ),
    upsert(
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
    ),
  );
  return statements;
}

// --- media ---------------------------------------------------------------------------------------

const MEDIA_BUCKET = "lms-media";

function crc32(bytes) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A 64×64 PNG in the demo's blue with a white band: the school logo. */
function logoPng() {
  const size = 64;
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = [0];
    for (let x = 0; x < size; x++) row.push(...(y >= 24 && y < 40 ? [255, 255, 255] : [0x1f, 0x6f, 0xeb]));
    rows.push(...row);
  }
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.from(rows))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A two-page PDF (classic xref table): the course handout. */
function handoutPdf() {
  const pages = ["Welcome to Demo School", "Page two: how to submit assignments"];
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", `<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i} 0 R`).join(" ")}] /Count ${pages.length} >>`];
  const font = 3 + pages.length * 2;
  pages.forEach((_, i) => objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents ${3 + pages.length + i} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`));
  pages.forEach((text) => {
    const content = `BT /F1 20 Tf 60 760 Td (${text}) Tj ET`;
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  });
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  let out = "%PDF-1.4\n";
  const offsets = objects.map((object, i) => {
    const offset = out.length;
    out += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return { bytes: Buffer.from(out, "latin1"), pages: pages.length };
}

/** The demo school's uploaded files: the logo (an image asset the school record points to) and a pdf. */
function demoFiles() {
  const handout = handoutPdf();
  return [
    { id: DEMO.logoAssetId, kind: "image", filename: "demo-logo.png", mime: "image/png", bytes: logoPng(), totalPages: null },
    { id: DEMO.handoutAssetId, kind: "pdf", filename: "welcome-handout.pdf", mime: "application/pdf", bytes: handout.bytes, totalPages: handout.pages },
  ].map((file) => ({
    ...file,
    key: `tenant/${DEMO.tenantId}/${file.id}`,
    // R2's etag of a single-part upload is the MD5 of the bytes; downloads ask for exactly that version.
    etag: createHash("md5").update(file.bytes).digest("hex"),
  }));
}

/** Confirmed asset rows for the demo files, and the school's logo pointing to the image (unless an admin changed it). */
function media({ now }) {
  const statements = demoFiles().map((file) =>
    upsert(
      "media_assets",
      {
        id: file.id,
        tenant_id: DEMO.tenantId,
        kind: file.kind,
        filename: file.filename,
        declared_size: file.bytes.length,
        declared_mime: file.mime,
        size_bytes: file.bytes.length,
        mime: file.mime,
        status: "confirmed",
        object_key: file.key,
        etag: file.etag,
        duration_seconds: null,
        total_pages: file.totalPages,
        uploaded_by_user_id: DEMO.admin.id,
        confirmed_at: now,
        object_purged_at: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      },
      { restore: ["tenant_id", "size_bytes", "mime", "status", "object_key", "etag", "object_purged_at", "deleted_at"], touch: "updated_at" },
    ),
  );
  statements.push(`UPDATE "tenants" SET "logo" = '${DEMO.logoAssetId}' WHERE "id" = '${DEMO.tenantId}' AND "logo" IS NULL;`);
  return statements;
}

/** Puts the demo files into the bucket (local state, or the deployed bucket with `{ remote: true }`); a put of the same bytes changes nothing. */
async function putDemoObjects(target) {
  const dir = await mkdtemp(path.join(tmpdir(), "lms-media-"));
  try {
    for (const file of demoFiles()) {
      const local = path.join(dir, file.id);
      await writeFile(local, file.bytes);
      const where = target.remote ? ["--remote"] : target.persistTo ? ["--local", "--persist-to", target.persistTo] : ["--local"];
      await runWrangler(["r2", "object", "put", `${MEDIA_BUCKET}/${file.key}`, "--file", local, "--content-type", file.mime, ...where], { quiet: true });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// --- push notifications ----------------------------------------------------------------------------

const PUSH = {
  devices: [
    { id: id(0x801), user: DEMO.students[0], installation: "demo-sara-phone", platform: "android", appVersion: "1.4.0" },
    { id: id(0x802), user: DEMO.students[0], installation: "demo-sara-tablet", platform: "ios", appVersion: "1.4.0" },
    { id: id(0x803), user: DEMO.admin, installation: "demo-ada-phone", platform: "ios", appVersion: "1.4.0" },
  ],
  campaignId: id(0x901),
  notifications: { campaign: id(0xa01), newDevice: id(0xa02), activated: id(0xa03) },
};

/**
 * A registration token sealed the way the Worker seals one (AES-256-GCM under PUSH_TOKEN_KEY, bound
 * to the school and installation, plus the keyed lookup hash): src/platform/devices/push-token-crypto.ts.
 */
async function sealDemoToken(base64Key, tenantId, installationId, token) {
  const raw = Buffer.from(base64Key.trim(), "base64");
  if (raw.length !== 32) return null;
  const subtle = globalThis.crypto.subtle;
  const aes = await subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt"]);
  const master = await subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  const lookup = await subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("push-token-lookup-v1") },
    master,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const additionalData = new TextEncoder().encode(`push-token:${tenantId}:${installationId}`);
  const sealed = await subtle.encrypt({ name: "AES-GCM", iv, additionalData }, aes, new TextEncoder().encode(token));
  const hash = Buffer.from(await subtle.sign("HMAC", lookup, new TextEncoder().encode(token))).toString("hex");
  return { ciphertext: `v2.${Buffer.from(iv).toString("base64url")}.${Buffer.from(sealed).toString("base64url")}`, hash };
}

/** `DD.MM.YYYY HH:MM` in the demo school's zone, as the Worker renders timestamps in ru. */
function tashkentTime(ms) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", { timeZone: "Asia/Tashkent", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
      .formatToParts(ms)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.day}.${parts.month}.${parts.year} ${parts.hour}:${parts.minute}`;
}

/** A row written once (any unique conflict, including a device re-registered by hand, keeps what is there). */
function insertOnce(table, row) {
  const columns = Object.keys(row);
  return `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map((c) => literal(row[c])).join(", ")}) ON CONFLICT DO NOTHING;`;
}

/**
 * Push demo: Sara and Ada have registered devices (tokens sealed with the local PUSH_TOKEN_KEY;
 * without a key, e.g. remote, the devices are left out), Timur switched pushes off, and a campaign
 * to every student was sent: Sara got it on both devices, the others were suppressed (push off or
 * no device). Sara's and Ada's histories hold a few delivered notifications, readable in the dev
 * pushbox too.
 */
async function notifications({ now, pushTokenKey }) {
  const [sara, timur] = DEMO.students;
  const statements = [];
  const devices = [];
  for (const device of PUSH.devices) {
    const sealed = pushTokenKey ? await sealDemoToken(pushTokenKey, DEMO.tenantId, device.installation, `demo-fcm-token-${device.installation}`) : null;
    if (!sealed) continue;
    devices.push(device);
    statements.push(
      insertOnce("push_devices", {
        id: device.id,
        tenant_id: DEMO.tenantId,
        user_id: device.user.id,
        installation_id: device.installation,
        provider: "fcm",
        platform: device.platform,
        token_ciphertext: sealed.ciphertext,
        token_hash: sealed.hash,
        enabled: true,
        app_version: device.appVersion,
        last_seen_at: now,
        created_at: now,
        updated_at: now,
      }),
    );
  }
  statements.push(insertOnce("push_preferences", { tenant_id: DEMO.tenantId, user_id: timur.id, push_enabled: false, updated_at: now }));

  const sent = now - 2 * 3_600_000;
  const paidUntil = sent - 2 * 86_400_000 + 365 * 86_400_000;
  const filter = JSON.stringify({ match: "all", rules: [] });
  statements.push(
    insertOnce("notification_campaigns", {
      id: PUSH.campaignId,
      tenant_id: DEMO.tenantId,
      created_by_user_id: DEMO.admin.id,
      status: "completed",
      title: "Новый учебный модуль",
      body: "Открыт модуль «Основы». Загляните в приложение!",
      deep_link: "/courses",
      audience_filter: filter,
      audience_count: DEMO.students.length,
      outbox_created_count: 1,
      sent_count: 1,
      failed_count: 0,
      fanned_out_at: sent,
      scheduled_at: sent,
      started_at: sent,
      completed_at: sent,
      cancelled_at: null,
      created_at: sent,
      updated_at: sent,
    }),
    ...DEMO.students.map((student) =>
      insertOnce("notification_campaign_recipients", { tenant_id: DEMO.tenantId, campaign_id: PUSH.campaignId, user_id: student.id, status: student === sara ? "queued" : "suppressed" }),
    ),
  );
  const history = [
    {
      id: PUSH.notifications.campaign,
      user: sara,
      event_code: "campaign.message",
      category: "campaign",
      title: "Новый учебный модуль",
      body: "Открыт модуль «Основы». Загляните в приложение!",
      deep_link: "/courses",
      data: { event_code: "campaign.message", campaign_id: PUSH.campaignId },
      aggregate_type: "campaign",
      aggregate_id: PUSH.campaignId,
      dedupe_key: `campaign.message:${PUSH.campaignId}:${sara.id}`,
      campaign_id: PUSH.campaignId,
      at: sent,
    },
    {
      id: PUSH.notifications.newDevice,
      user: sara,
      event_code: "security.new_device_login",
      category: "security",
      title: "Новый вход в аккаунт",
      body: "Вход с нового устройства: Chrome, web, 01.01.2025 09:00. Если это были не вы, завершите сеанс и смените пароль.",
      deep_link: null,
      data: { event_code: "security.new_device_login", auth_device_id: id(0x8ff), device_name: "Chrome, web", platform: "web", signed_in_at: "2025-01-01T04:00:00.000Z", exclude_installation_id: "demo-sara-laptop" },
      aggregate_type: "auth_device",
      aggregate_id: id(0x8ff),
      dedupe_key: `security.new_device_login:${id(0x8ff)}`,
      campaign_id: null,
      at: sent - 86_400_000,
    },
    {
      id: PUSH.notifications.activated,
      user: DEMO.admin,
      event_code: "billing.activated",
      category: "billing",
      title: "Подписка активирована",
      body: `Тариф «Annual» оплачен на 365 дн. Доступ открыт до ${tashkentTime(paidUntil)}.`,
      deep_link: null,
      data: { event_code: "billing.activated", tenant_id: DEMO.tenantId, school_title: "Demo School", tariff_title: "Annual", days: 365, expires_at: new Date(paidUntil).toISOString() },
      aggregate_type: "tenant",
      aggregate_id: DEMO.tenantId,
      dedupe_key: `billing.activated:${DEMO.tenantId}:${DEMO_PAYMENT_ID}:${DEMO.admin.id}`,
      campaign_id: null,
      at: sent - 2 * 86_400_000,
    },
  ];
  let deliveryId = 0xb01;
  for (const row of history) {
    statements.push(
      insertOnce("notification_outbox", {
        id: row.id,
        tenant_id: DEMO.tenantId,
        user_id: row.user.id,
        event_code: row.event_code,
        category: row.category,
        title: row.title,
        body: row.body,
        deep_link: row.deep_link,
        data: JSON.stringify(row.data),
        aggregate_type: row.aggregate_type,
        aggregate_id: row.aggregate_id,
        dedupe_key: row.dedupe_key,
        status: "sent",
        attempts: 1,
        sent_at: row.at,
        settled_at: row.at,
        campaign_id: row.campaign_id,
        created_at: row.at,
      }),
    );
    for (const device of devices.filter((d) => d.user.id === row.user.id)) {
      statements.push(
        insertOnce("notification_deliveries", {
          id: id(deliveryId++),
          tenant_id: DEMO.tenantId,
          outbox_id: row.id,
          push_device_id: device.id,
          user_id: row.user.id,
          provider: "log",
          status: "sent",
          attempts: 1,
          provider_message_id: `log:demo-${row.id}`,
          delivered_at: row.at,
          created_at: row.at,
          updated_at: row.at,
        }),
      );
    }
  }
  return statements;
}

// --- courses ---------------------------------------------------------------------------------------

const COURSE = {
  id: id(0xc01),
  draftId: id(0xc02),
  modules: [id(0xc11), id(0xc12)],
  draftModule: id(0xc13),
  lessons: [id(0xc21), id(0xc22), id(0xc23), id(0xc24)],
};

/**
 * The published demo course: two modules, four lessons and a block of every manual type (the
 * image and pdf blocks show the seeded uploads), plus a draft course staff see and students do not.
 */
function courseBlocks() {
  const [welcome, handbook, watch, wrapUp] = COURSE.lessons;
  const block = (n, lesson, position, type, payload, refId = null) => ({ id: id(0xd00 + n), lesson, position, type, payload, refId });
  return [
    block(1, welcome, 0, "text", { html: "<p>Welcome to <strong>Demo School</strong>! Work through the blocks in order.</p>" }),
    block(2, welcome, 1, "image", { media_asset_id: DEMO.logoAssetId, caption: "Our school logo" }, DEMO.logoAssetId),
    block(3, welcome, 2, "video", { url: "https://www.w3schools.com/html/mov_bbb.mp4" }),
    block(4, handbook, 0, "pdf", { media_asset_id: DEMO.handoutAssetId }, DEMO.handoutAssetId),
    block(5, handbook, 1, "file", { media_asset_id: DEMO.handoutAssetId, title: "Handout (download)" }, DEMO.handoutAssetId),
    block(6, watch, 0, "embed", { url: "https://www.youtube-nocookie.com/embed/aqz-KE-bpKQ", title: "Big Buck Bunny" }),
    block(7, watch, 1, "text", { html: "<h2>Notes</h2><ul><li>Pause when you need to.</li><li>Take notes.</li></ul>" }),
    block(8, wrapUp, 0, "text", { html: "<p>Well done. Mark this block complete to finish the course.</p>" }),
  ];
}

function courses({ now }) {
  const live = { restore: ["tenant_id", "deleted_at"], touch: "updated_at" };
  const statements = [
    upsert(
      "courses",
      {
        id: COURSE.id,
        tenant_id: DEMO.tenantId,
        title: "Getting Started at Demo School",
        slug: "getting-started",
        description: "<p>A short tour of how courses work: text, images, video, documents and embedded pages.</p>",
        status: "published",
        sequential_required: false,
        position: 0,
        cover_image_id: DEMO.logoAssetId,
        created_by: DEMO.admin.id,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      },
      { restore: ["tenant_id", "slug", "status", "deleted_at"], touch: "updated_at" },
    ),
    upsert(
      "courses",
      {
        id: COURSE.draftId,
        tenant_id: DEMO.tenantId,
        title: "Advanced Topics (draft)",
        slug: "advanced-topics",
        description: "<p>Being written: staff see it, students do not.</p>",
        status: "draft",
        sequential_required: true,
        position: 1,
        cover_image_id: null,
        created_by: DEMO.admin.id,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      },
      { restore: ["tenant_id", "slug", "deleted_at"], touch: "updated_at" },
    ),
  ];
  const modules = [
    { id: COURSE.modules[0], course: COURSE.id, title: "Module 1: The basics", position: 0 },
    { id: COURSE.modules[1], course: COURSE.id, title: "Module 2: Going further", position: 1 },
    { id: COURSE.draftModule, course: COURSE.draftId, title: "Outline", position: 0 },
  ];
  for (const module of modules) {
    statements.push(
      upsert(
        "course_modules",
        { id: module.id, tenant_id: DEMO.tenantId, course_id: module.course, title: module.title, description: "", position: module.position, cover_image_id: null, created_at: now, updated_at: now, deleted_at: null },
        live,
      ),
    );
  }
  const lessons = [
    { id: COURSE.lessons[0], module: COURSE.modules[0], title: "Welcome", position: 0 },
    { id: COURSE.lessons[1], module: COURSE.modules[0], title: "The handbook", position: 1 },
    { id: COURSE.lessons[2], module: COURSE.modules[1], title: "Watch and read", position: 0 },
    { id: COURSE.lessons[3], module: COURSE.modules[1], title: "Wrap-up", position: 1 },
  ];
  for (const lesson of lessons) {
    statements.push(
      upsert(
        "lessons",
        { id: lesson.id, tenant_id: DEMO.tenantId, course_id: COURSE.id, module_id: lesson.module, title: lesson.title, position: lesson.position, screenshot_protection_enabled: lesson.position === 1, cover_image_id: null, created_at: now, updated_at: now, deleted_at: null },
        live,
      ),
    );
  }
  const moduleOf = Object.fromEntries(lessons.map((lesson) => [lesson.id, lesson.module]));
  for (const b of courseBlocks()) {
    statements.push(
      upsert(
        "blocks",
        { id: b.id, tenant_id: DEMO.tenantId, course_id: COURSE.id, module_id: moduleOf[b.lesson], lesson_id: b.lesson, type: b.type, payload: JSON.stringify(b.payload), ref_id: b.refId, position: b.position, created_at: now, updated_at: now, deleted_at: null },
        live,
      ),
    );
  }
  return statements;
}

// --- learning paths and schedules ----------------------------------------------------------------

const PATH = { id: id(0x1201), courseWindow: id(0x1211) };

/**
 * A published learning path "Start here": the demo course, then the draft course (students see
 * only published courses of a path, so the second step appears once it is published), and a date
 * window on the demo course that closes at the end of 2030 (students see `available_until`).
 */
function paths({ now }) {
  const statements = [
    upsert(
      "learning_paths",
      { id: PATH.id, tenant_id: DEMO.tenantId, title: "Start here", description: "<p>The first courses every new student takes, in order.</p>", status: "published", created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null },
      { restore: ["tenant_id", "status", "deleted_at"], touch: "updated_at" },
    ),
    ...[COURSE.id, COURSE.draftId].map((courseId, position) =>
      upsert("learning_path_courses", { tenant_id: DEMO.tenantId, path_id: PATH.id, course_id: courseId, position, created_at: now }, { key: ["path_id", "course_id"], restore: ["position"] }),
    ),
    upsert(
      "schedule_windows",
      {
        id: PATH.courseWindow, tenant_id: DEMO.tenantId, course_id: COURSE.id, group_id: null, grid_key: "", level: "course", module_id: null, lesson_id: null, node_id: COURSE.id,
        starts_at: null, ends_at: Date.parse("2030-12-31T18:59:59Z"), allow_before_start: false, allow_after_end: false, created_at: now, updated_at: now, deleted_at: null,
      },
      { restore: ["tenant_id", "deleted_at"] },
    ),
  ];
  return statements;
}

// --- quizzes ---------------------------------------------------------------------------------------

const QUIZ = {
  id: id(0x1001),
  questions: { single: id(0x1011), multiple: id(0x1012), freeText: id(0x1013), matching: id(0x1014) },
  block: id(0xd09),
  lolaAttempt: id(0x1041),
  timurAttempt: id(0x1042),
};

/**
 * A quiz with one question of each type, referenced from the "Watch and read" lesson of the demo
 * course. Lola passed it (her quiz block is completed through it); Timur submitted an attempt whose
 * free-text answer waits for a curator's grade. The matching answers of these finished attempts
 * name the right side by its row id (a live attempt sends the tokens of the student view).
 */
function quizzes({ now }) {
  const q = QUIZ.questions;
  const [, timur, lola] = DEMO.students;
  const answer = (n) => id(0x1020 + n);
  const match = (n) => id(0x1030 + n);
  const live = { restore: ["tenant_id", "deleted_at"] };
  const statements = [
    upsert(
      "quizzes",
      {
        id: QUIZ.id, tenant_id: DEMO.tenantId, title: "Demo School check-up",
        description: "<p>Four questions about this course: one of each kind.</p>",
        max_attempts: null, time_limit_seconds: 900, passing_score: 60, retake_policy: "best", default_scoring_mode: "all_or_nothing",
        screenshot_protection_enabled: false, created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null,
      },
      { restore: ["tenant_id", "deleted_at", "max_attempts"], touch: "updated_at" },
    ),
  ];
  const questions = [
    { id: q.single, type: "single", prompt: "Which block type plays a film?", position: 0, scoring_mode: null, correct_text: [] },
    { id: q.multiple, type: "multiple", prompt: "Which of these can a lesson hold?", position: 1, scoring_mode: "partial", correct_text: [] },
    { id: q.freeText, type: "free_text", prompt: "Type the name of our school.", position: 2, scoring_mode: null, correct_text: ["Demo School"] },
    { id: q.matching, type: "matching", prompt: "Match each block type with what it shows.", position: 3, scoring_mode: null, correct_text: [] },
  ];
  for (const question of questions) {
    statements.push(upsert("quiz_questions", {
      id: question.id, tenant_id: DEMO.tenantId, quiz_id: QUIZ.id, type: question.type, prompt: question.prompt, image_asset_id: null,
      position: question.position, points_hundredths: 100, scoring_mode: question.scoring_mode, correct_text: JSON.stringify(question.correct_text),
      created_at: now, updated_at: now, deleted_at: null,
    }, live));
  }
  const answers = [
    [1, q.single, "video", true], [2, q.single, "pdf", false], [3, q.single, "embed", false],
    [4, q.multiple, "Text", true], [5, q.multiple, "Images", true], [6, q.multiple, "Phone calls", false],
  ];
  answers.forEach(([n, question, text, correct], i) => statements.push(upsert("quiz_answers", {
    id: answer(n), tenant_id: DEMO.tenantId, quiz_id: QUIZ.id, question_id: question, text, image_asset_id: null, is_correct: correct, position: i % 3, created_at: now, deleted_at: null,
  }, live)));
  const matches = [[1, "pdf", "A document to read"], [2, "video", "Moving pictures"], [3, null, "A phone call"]];
  matches.forEach(([n, left, right], i) => statements.push(upsert("quiz_matches", {
    id: match(n), tenant_id: DEMO.tenantId, quiz_id: QUIZ.id, question_id: q.matching, left_text: left, right_text: right, position: i, created_at: now, deleted_at: null,
  }, live)));
  statements.push(upsert(
    "blocks",
    { id: QUIZ.block, tenant_id: DEMO.tenantId, course_id: COURSE.id, module_id: COURSE.modules[1], lesson_id: COURSE.lessons[2], type: "quiz_ref", payload: JSON.stringify({ quiz_id: QUIZ.id }), ref_id: QUIZ.id, position: 2, created_at: now, updated_at: now, deleted_at: null },
    live,
  ));
  const pairs = { pairs: [{ left_id: match(1), right_id: match(1) }, { left_id: match(2), right_id: match(2) }] };
  const attempts = [
    { id: QUIZ.lolaAttempt, user: lola, n: 0, score: 400, pct: 10000, pending: false, passed: true, answers: [
      [q.single, { answer_ids: [answer(1)] }, 100, true], [q.multiple, { answer_ids: [answer(4), answer(5)] }, 100, true],
      [q.freeText, { text: "demo school" }, 100, true], [q.matching, pairs, 100, true],
    ] },
    // Multiple choice is partial: one of two right answers and no wrong one earns half its point.
    { id: QUIZ.timurAttempt, user: timur, n: 1, score: 150, pct: 3750, pending: true, passed: null, answers: [
      [q.single, { answer_ids: [answer(1)] }, 100, true], [q.multiple, { answer_ids: [answer(4)] }, 50, false],
      [q.freeText, { text: "The demo scool" }, null, null], [q.matching, { pairs: [pairs.pairs[0], { left_id: match(2), right_id: match(3) }] }, 0, false],
    ] },
  ];
  for (const a of attempts) {
    const started = now - (3 - a.n) * DAY_MS;
    statements.push(insertOnce("quiz_attempts", {
      id: a.id, tenant_id: DEMO.tenantId, quiz_id: QUIZ.id, user_id: a.user.id, actor_role: "student", status: "submitted", exam_attempt_id: null,
      started_at: started, deadline_at: started + 900_000, submitted_at: started + 300_000, auto_finalized: false,
      score_hundredths: a.score, max_score_hundredths: 400, score_pct_hundredths: a.pct, pending_review: a.pending, passed: a.passed, created_at: started, updated_at: started + 300_000,
    }));
    a.answers.forEach(([question, payload, awarded, correct], i) => statements.push(insertOnce("quiz_attempt_answers", {
      id: id(0x1050 + a.n * 0x10 + i), tenant_id: DEMO.tenantId, attempt_id: a.id, quiz_id: QUIZ.id, user_id: a.user.id, question_id: question,
      payload: JSON.stringify(payload), client_seq: null, awarded_hundredths: awarded, is_correct: correct, feedback: null, graded_by: null, graded_at: null, saved_at: started + 200_000,
    })));
  }
  // Lola's pass completed her quiz block (the enrollments section recounts her progress).
  statements.push(upsert(
    "block_completions",
    { id: id(0x1061), tenant_id: DEMO.tenantId, course_id: COURSE.id, lesson_id: COURSE.lessons[2], block_id: QUIZ.block, student_id: lola.id, enrollment_id: id(0xe03), source: "quiz", completed_at: now - 3 * DAY_MS + 300_000 },
    { key: ["block_id", "student_id"] },
  ));
  return statements;
}

// --- exams -----------------------------------------------------------------------------------------

const EXAM = {
  id: id(0x1101),
  sections: [id(0x1111), id(0x1112)],
  quiz: id(0x1002),
  questions: [id(0x1021), id(0x1022)],
};

/**
 * A published two-section exam (30 minutes, pass mark 50 %): the demo course's check-up quiz
 * (weight 2) and a short quiz of two questions about the school (weight 1). Nobody has taken it.
 */
function exams({ now }) {
  const live = { restore: ["tenant_id", "deleted_at"] };
  const answer = (n) => id(0x1060 + n);
  const statements = [
    upsert(
      "quizzes",
      {
        id: EXAM.quiz, tenant_id: DEMO.tenantId, title: "School rules", description: "<p>Two questions about how the school works.</p>",
        max_attempts: null, time_limit_seconds: null, passing_score: null, retake_policy: "best", default_scoring_mode: "all_or_nothing",
        screenshot_protection_enabled: false, created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null,
      },
      live,
    ),
  ];
  const questions = [
    { id: EXAM.questions[0], prompt: "Where do you find your courses?", answers: [["In the app's course list", true], ["In the post", false]] },
    { id: EXAM.questions[1], prompt: "Who checks your free-text answers?", answers: [["A curator", true], ["Nobody", false]] },
  ];
  questions.forEach((question, q) => {
    statements.push(upsert("quiz_questions", {
      id: question.id, tenant_id: DEMO.tenantId, quiz_id: EXAM.quiz, type: "single", prompt: question.prompt, image_asset_id: null,
      position: q, points_hundredths: 100, scoring_mode: null, correct_text: "[]", created_at: now, updated_at: now, deleted_at: null,
    }, live));
    question.answers.forEach(([text, correct], n) => statements.push(upsert("quiz_answers", {
      id: answer(q * 2 + n), tenant_id: DEMO.tenantId, quiz_id: EXAM.quiz, question_id: question.id, text, image_asset_id: null, is_correct: correct, position: n, created_at: now, deleted_at: null,
    }, live)));
  });
  statements.push(upsert(
    "exams",
    {
      id: EXAM.id, tenant_id: DEMO.tenantId, title: "Demo School entrance exam", description: "<p>Two sections; the first counts double.</p>",
      time_limit_seconds: 1800, passing_score: 50, max_attempts: null, retake_policy: "best", screenshot_protection_enabled: false,
      status: "published", published_at: now, created_by: DEMO.admin.id, created_at: now, updated_at: now, deleted_at: null,
    },
    { restore: ["tenant_id", "deleted_at", "status", "max_attempts"], touch: "updated_at" },
  ));
  const sections = [
    { id: EXAM.sections[0], quiz: QUIZ.id, title: "Course check-up", weight: 2 },
    { id: EXAM.sections[1], quiz: EXAM.quiz, title: "School rules", weight: 1 },
  ];
  sections.forEach((section, position) => statements.push(upsert("exam_sections", {
    id: section.id, tenant_id: DEMO.tenantId, exam_id: EXAM.id, quiz_id: section.quiz, title: section.title, position, weight: section.weight, created_at: now, updated_at: now, deleted_at: null,
  }, { restore: ["tenant_id", "deleted_at", "quiz_id", "weight"] })));
  return statements;
}

/**
 * Sara, Timur and Lola are enrolled directly in the demo course (Omar is left to enroll himself in
 * the README tour): Sara finished module 1, Timur opened the first lesson, Lola completed the course.
 * Progress is recounted from the completions the way the Worker recounts it, only where it drifted.
 */
function enrollments({ now }) {
  const [sara, timur, lola] = DEMO.students;
  const blocks = courseBlocks();
  const plan = [
    { student: sara, n: 1, done: 5, lastBlock: blocks[4].id },
    { student: timur, n: 2, done: 0, lastBlock: blocks[0].id },
    { student: lola, n: 3, done: blocks.length, lastBlock: blocks[blocks.length - 1].id },
  ];
  const statements = [];
  for (const entry of plan) {
    const enrollmentId = id(0xe00 + entry.n);
    statements.push(
      upsert(
        "enrollments",
        {
          id: enrollmentId,
          tenant_id: DEMO.tenantId,
          course_id: COURSE.id,
          student_id: entry.student.id,
          enrolled_at: now - 10 * DAY_MS,
          enrolled_by: DEMO.admin.id,
          removed_at: null,
          last_accessed_block_id: entry.lastBlock,
          last_accessed_at: now - entry.n * DAY_MS,
          blocks_completed: 0,
          total_blocks: 0,
          completed_at: null,
          created_at: now,
          updated_at: now,
        },
        { key: ["course_id", "student_id"], restore: ["removed_at"], touch: "updated_at" },
      ),
      upsert(
        "enrollment_sources",
        { tenant_id: DEMO.tenantId, enrollment_id: enrollmentId, course_id: COURSE.id, student_id: entry.student.id, kind: "direct", group_id: null, source_key: "direct", created_by: DEMO.admin.id, created_at: now },
        { key: ["enrollment_id", "source_key"] },
      ),
    );
    blocks.slice(0, entry.done).forEach((b, index) => {
      const lesson = b.lesson;
      statements.push(
        upsert(
          "block_completions",
          { id: id(0xf00 + entry.n * 0x10 + index), tenant_id: DEMO.tenantId, course_id: COURSE.id, lesson_id: lesson, block_id: b.id, student_id: entry.student.id, enrollment_id: enrollmentId, source: "manual", completed_at: now - (entry.n + 1) * DAY_MS + index * 60_000 },
          { key: ["block_id", "student_id"] },
        ),
      );
    });
  }
  // The Morning group is enrolled in the course too: Sara and Timur hold a group source besides their direct one.
  statements.push(
    upsert(
      "course_group_enrollments",
      { id: id(0xe10), tenant_id: DEMO.tenantId, course_id: COURSE.id, group_id: DEMO.groupId, enrolled_at: now - 10 * DAY_MS, enrolled_by: DEMO.admin.id },
      { key: ["course_id", "group_id"] },
    ),
    ...plan
      .filter((entry) => entry.student === sara || entry.student === timur)
      .map((entry) =>
        upsert(
          "enrollment_sources",
          { tenant_id: DEMO.tenantId, enrollment_id: id(0xe00 + entry.n), course_id: COURSE.id, student_id: entry.student.id, kind: "group", group_id: DEMO.groupId, source_key: `group:${DEMO.groupId}`, created_by: DEMO.admin.id, created_at: now },
          { key: ["enrollment_id", "source_key"] },
        ),
      ),
  );
  const total = `(SELECT count(*) FROM "blocks" b WHERE b."tenant_id" = '${DEMO.tenantId}' AND b."course_id" = e."course_id" AND b."deleted_at" IS NULL)`;
  const done = `(SELECT count(*) FROM "block_completions" bc JOIN "blocks" b ON b."id" = bc."block_id" AND b."deleted_at" IS NULL
    WHERE bc."tenant_id" = '${DEMO.tenantId}' AND bc."student_id" = e."student_id" AND bc."course_id" = e."course_id")`;
  statements.push(`UPDATE "enrollments" AS e SET "blocks_completed" = ${done}, "total_blocks" = ${total},
    "completed_at" = COALESCE(e."completed_at", CASE WHEN ${total} > 0 AND ${done} >= ${total} THEN ${now} END), "updated_at" = ${now}
  WHERE e."tenant_id" = '${DEMO.tenantId}' AND e."course_id" = '${COURSE.id}'
    AND (e."blocks_completed" IS NOT ${done} OR e."total_blocks" IS NOT ${total} OR (e."completed_at" IS NULL AND ${total} > 0 AND ${done} >= ${total}));`);
  return statements;
}

/** Seed sections in dependency order; each returns SQL statements (or a promise of them). Append new areas here. */
export const sections = [school, people, groups, billing, media, notifications, courses, paths, quizzes, exams, enrollments];

/** The accounts `npm run dev` prints; all share DEMO_PASSWORD. */
export function demoLogins() {
  const [s1, s2, s3, s4] = DEMO.students;
  return [
    { role: "admin", email: DEMO.admin.email, note: "a push device; a sent campaign" },
    { role: "curator", email: DEMO.restrictedCurator.email, note: `restricted: only can_manage_students; "Morning group" + ${s3.email}` },
    { role: "curator", email: DEMO.curator.email, note: `all six permissions; curates "Evening group"` },
    { role: "student", email: s1.email, note: `"Morning group" (enrolled in the demo course); push devices (phone, tablet) and a push history; demo course: module 1 done` },
    { role: "student", email: s2.email, note: `"Morning group"; pushes switched off; demo course: just started` },
    { role: "student", email: s3.email, note: `"Evening group"; individual curator: ${DEMO.restrictedCurator.email}; demo course completed` },
    { role: "student", email: s4.email, note: `"Evening group"; not enrolled yet (the README tour enrolls him)` },
  ]
    .map((login) => ({ ...login, subdomain: DEMO.subdomain }))
    .concat([{ role: "admin", email: TRIAL.admin.email, note: `school "${TRIAL.subdomain}": trial, 5 days left`, subdomain: TRIAL.subdomain }])
    .map((login) => ({ ...login, password: DEMO_PASSWORD }));
}

export async function buildSeedSql({ now = Date.now(), pepper, pushTokenKey = null }) {
  const context = { now, pepper, pushTokenKey };
  const parts = [];
  for (const section of sections) {
    parts.push(`-- ${section.name}`, ...(await section(context)));
  }
  return `${parts.join("\n")}\n`;
}

/** Writes the demo rows into the local D1 (or the deployed one with `{ remote: true }`). */
export async function seed(target = {}) {
  const sql = await buildSeedSql({ pepper: passwordPepper(target), pushTokenKey: pushTokenKeyOf(target) });
  try {
    await executeSql(sql, target);
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
      `API reference: ${baseUrl}/api/v1/docs\n`,
  );
}

async function main() {
  const { values } = parseArgs({
    options: { remote: { type: "boolean", default: false }, "persist-to": { type: "string" }, print: { type: "boolean", default: false } },
  });
  const target = { remote: values.remote, persistTo: values["persist-to"] };
  if (values.print) {
    process.stdout.write(await buildSeedSql({ pepper: passwordPepper(target), pushTokenKey: pushTokenKeyOf(target) }));
    return;
  }
  await applyMigrations(target);
  await seed(target);
  console.log(`Demo data written (${target.remote ? "remote" : "local"} D1).`);
  printDemoLogins(`http://localhost:${configuredDevPort()}`);
  console.log(`(That is the port \`npm run dev\` prefers; it prints the one it actually uses when it starts.)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) runMain(main);
