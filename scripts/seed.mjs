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
import { applyMigrations, CliError, configuredDevPort, executeSql, passwordPepper, runMain, runWrangler } from "./lib/project.mjs";
import { hashPassword } from "./lib/password.mjs";
import { upsert } from "./lib/sql.mjs";

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
  return [
    upsert(
      "groups",
      { id: DEMO.groupId, tenant_id: DEMO.tenantId, name: "Morning group", logo: null, created_at: now, updated_at: now, deleted_at: null },
      { restore: ["tenant_id", "deleted_at"], touch: "updated_at" },
    ),
    membership(first),
    membership(second),
    upsert(
      "group_curators",
      { tenant_id: DEMO.tenantId, group_id: DEMO.groupId, curator_id: DEMO.restrictedCurator.id, created_at: now },
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

/** Seed sections in dependency order; each returns SQL statements (or a promise of them). Append new areas here. */
export const sections = [school, people, groups, billing, media];

/** The accounts `npm run dev` prints; all share DEMO_PASSWORD. */
export function demoLogins() {
  const [s1, s2, s3, s4] = DEMO.students;
  return [
    { role: "admin", email: DEMO.admin.email, note: "" },
    { role: "curator", email: DEMO.restrictedCurator.email, note: `restricted: only can_manage_students; "Morning group" + ${s3.email}` },
    { role: "curator", email: DEMO.curator.email, note: "all six permissions" },
    { role: "student", email: s1.email, note: `"Morning group"` },
    { role: "student", email: s2.email, note: `"Morning group"` },
    { role: "student", email: s3.email, note: `individual curator: ${DEMO.restrictedCurator.email}` },
    { role: "student", email: s4.email, note: "" },
  ]
    .map((login) => ({ ...login, subdomain: DEMO.subdomain }))
    .concat([{ role: "admin", email: TRIAL.admin.email, note: `school "${TRIAL.subdomain}": trial, 5 days left`, subdomain: TRIAL.subdomain }])
    .map((login) => ({ ...login, password: DEMO_PASSWORD }));
}

export async function buildSeedSql({ now = Date.now(), pepper }) {
  const context = { now, pepper };
  const parts = [];
  for (const section of sections) {
    parts.push(`-- ${section.name}`, ...(await section(context)));
  }
  return `${parts.join("\n")}\n`;
}

/** Writes the demo rows into the local D1 (or the deployed one with `{ remote: true }`). */
export async function seed(target = {}) {
  const sql = await buildSeedSql({ pepper: passwordPepper(target) });
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
    process.stdout.write(await buildSeedSql({ pepper: passwordPepper(target) }));
    return;
  }
  await applyMigrations(target);
  await seed(target);
  console.log(`Demo data written (${target.remote ? "remote" : "local"} D1).`);
  printDemoLogins(`http://localhost:${configuredDevPort()}`);
  console.log(`(That is the port \`npm run dev\` prefers; it prints the one it actually uses when it starts.)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) runMain(main);
