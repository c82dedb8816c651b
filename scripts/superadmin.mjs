/**
 * `npm run superadmin -- --email E --password P [--remote]`: creates the platform superadmin, or
 * resets the password of the existing one (same email, no school), after applying migrations.
 * A reset also ends that account's sessions and lifts its login lock. The account (a users row with
 * no school), its sessions and the login lock all live in the control database `DB`.
 */
import { parseArgs } from "node:util";
import { applyMigrations, CONTROL_DB, executeSql, passwordPepper, runMain, CliError } from "./lib/project.mjs";
import { uuidv7 } from "./lib/ids.mjs";
import { hashPassword } from "./lib/password.mjs";
import { literal } from "./lib/sql.mjs";

const USAGE = "usage: npm run superadmin -- --email <email> --password <at least 8 characters> [--remote] [--first-name F] [--last-name L]";
// The same shape the API accepts (one @, a dotted domain, no spaces); the API lower-cases emails.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function parseInput() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        email: { type: "string" },
        password: { type: "string" },
        remote: { type: "boolean", default: false },
        "persist-to": { type: "string" },
        "first-name": { type: "string", default: "Platform" },
        "last-name": { type: "string", default: "Superadmin" },
      },
    }));
  } catch (err) {
    throw new CliError(`${err.message}\n${USAGE}`);
  }
  const email = values.email?.trim().toLowerCase() ?? "";
  const password = values.password ?? "";
  if (!EMAIL.test(email) || email.length > 254) throw new CliError(`--email must be a valid email address\n${USAGE}`);
  if (password.length < 8) throw new CliError(`--password must be at least 8 characters\n${USAGE}`);
  if (password.length > 256) throw new CliError("--password must be at most 256 characters (the login limit)");
  return { email, password, firstName: values["first-name"], lastName: values["last-name"], target: { remote: values.remote, persistTo: values["persist-to"] } };
}

function upsertSuperadminSql({ email, passwordHash, firstName, lastName, now }) {
  const platformUser = `SELECT "id" FROM "users" WHERE "tenant_id" IS NULL AND "email" = ${literal(email)} AND "deleted_at" IS NULL`;
  // The conflict target is the partial unique index users_platform_email_live, so create-or-reset is one atomic statement.
  return `INSERT INTO "users" ("id", "tenant_id", "email", "password_hash", "first_name", "last_name", "role", "is_active", "email_verified_at", "created_at", "updated_at")
  VALUES (${literal(uuidv7(now))}, NULL, ${literal(email)}, ${literal(passwordHash)}, ${literal(firstName)}, ${literal(lastName)}, 'superadmin', 1, ${now}, ${now}, ${now})
  ON CONFLICT ("email") WHERE deleted_at IS NULL AND tenant_id IS NULL
  DO UPDATE SET "password_hash" = excluded."password_hash", "role" = 'superadmin', "is_active" = 1, "updated_at" = excluded."updated_at"
  RETURNING "created_at" = ${now} AS "created";
UPDATE "sessions" SET "revoked_at" = ${now}, "revoke_reason" = 'password_reset'
  WHERE "revoked_at" IS NULL AND "created_at" < ${now} AND "user_id" IN (${platformUser});
-- Key format of src/platform/auth/login-guard.ts: a reset lifts the lock a forgotten password may have caused.
DELETE FROM "login_failures" WHERE "key" = ${literal(`pair:_platform:${email}`)};
`;
}

async function main() {
  const input = parseInput();
  const pepper = passwordPepper(input.target);
  const where = input.target.remote ? "remote" : "local";
  await applyMigrations(input.target);
  const now = Date.now();
  const passwordHash = await hashPassword(input.password, pepper);
  const results = await executeSql(CONTROL_DB, upsertSuperadminSql({ ...input, passwordHash, now }), input.target);
  const created = results?.[0]?.results?.[0]?.created;
  const outcome = created === 1 ? "created" : created === 0 ? "existed: password reset, its sessions ended" : "created or reset";
  console.log(`Superadmin ${input.email} in the ${where} control D1 (DB): ${outcome}.`);
  console.log(`Sign in with POST /api/v1/auth/login and "subdomain": "" (or no subdomain).`);
}

runMain(main);
