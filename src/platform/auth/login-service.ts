import { and, eq, inArray, isNull } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { billingSummary } from "../billing/state";
import { tenants, users } from "../../db/schema";
import { sealLoginDeviceToken } from "../devices/push-registration";
import { signInDevice } from "../devices/sign-in";
import type { Actor, Role, ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import type { BatchItem } from "../../core/db/batch";
import { accountFilter, schoolBySubdomainQuery } from "./accounts";
import { accountDb } from "../devices/account-db";
import { shardDb, shardNames } from "../../core/db/client";
import { idIn } from "../../core/db/conditions";
import type { Db } from "../../core/db/client";
import { forSchool, systemActor } from "../../core/school";
import { schoolSummary } from "../schools/lookup";
import { authErrors } from "./errors";
import { clearPairStatement, isLocked, lockQuery, loginGuardKeys, recordFailure } from "./login-guard";
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from "./password";
import type { LoginBody } from "./schemas";
import type { ClientInfo, IssuedSession } from "../devices/session-service";

export interface LoginResult extends IssuedSession {
  user: { id: string; email: string; role: Role; first_name: string; last_name: string };
}

/**
 * Password sign-in creating a managed device session. An unknown email, a wrong password, an
 * inactive account and a deleted school are indistinguishable: same answer, same PBKDF2 cost.
 */
export async function login(ctx: ServiceContext, input: { body: z.infer<typeof LoginBody>; client: ClientInfo }): Promise<LoginResult> {
  const { body, client } = input;
  const subdomain = body.subdomain ?? "";
  const keys = loginGuardKeys(subdomain, body.email, client.ip);
  const now = ctx.clock.now();

  // Control database: the lock rows and the school (or, for the superadmin, the account itself).
  const [locks, schools] = await ctx.db.batch([lockQuery(ctx, keys), schoolBySubdomainQuery(ctx, subdomain === "" ? "\u0000" : subdomain)]);
  const school = subdomain === "" ? null : schools[0] ? schoolSummary(schools[0]) : undefined;
  if (isLocked(locks, now)) {
    await recordFailure(ctx, keys);
    throw new ApiError(authErrors.SIGN_IN_LOCKED);
  }

  // The account's own database: the school's shard, or the control database for the superadmin.
  const home: Db = school === undefined ? ctx.db : accountDb(ctx.env, school?.shard ?? null);
  const candidates = school === undefined ? [] : await accountQuery(home, school?.id ?? null, body.email);
  const account = candidates[0];
  const check = await verifyPassword(body.password, account?.passwordHash ?? DUMMY_PASSWORD_HASH, ctx.config.passwordPepper);
  // An inactive account counts like a wrong password, so the lock cannot tell a right guess apart.
  if (!account || !check.valid || !account.isActive) {
    const { locked } = await recordFailure(ctx, keys);
    throw new ApiError(locked ? authErrors.SIGN_IN_LOCKED : authErrors.INVALID_CREDENTIALS);
  }
  if (school?.status === "pending") throw new ApiError(authErrors.EMAIL_NOT_VERIFIED);
  const homeCtx = school ? forSchool(ctx, school, systemActor("sign_in")) : ctx;

  // Sealed before anything is written: a token that cannot be stored fails the login (503).
  // The platform has no push registry, so a superadmin's device_token is not kept.
  const push =
    body.device_token && account.tenantId !== null
      ? await sealLoginDeviceToken(homeCtx, body.device_token, { tenantId: account.tenantId, installationId: body.installation_id ?? null })
      : null;

  // The right password clears the pair's failures (control database) whatever the device policy decides.
  await clearPairStatement(ctx, keys).run();
  const statements: BatchItem[] = [];
  if (check.needsRehash) {
    const rehashed = await hashPassword(body.password, ctx.config.passwordPepper);
    statements.push(home.update(users).set({ passwordHash: rehashed }).where(eq(users.id, account.id)));
  }

  const session = await signInDevice(homeCtx, {
    user: { id: account.id, tenantId: account.tenantId, role: account.role, shard: school?.shard ?? null },
    device: {
      installationId: body.installation_id,
      platform: client.isBrowser ? "web" : (body.device_platform ?? "web"),
      name: body.device_name,
      osName: body.os_name,
      osVersion: body.os_version,
      browserName: body.browser_name,
      browserVersion: body.browser_version,
      appVersion: body.app_version,
    },
    client,
    push,
    statements,
  });
  return {
    ...session,
    user: { id: account.id, email: account.email, role: account.role, first_name: account.firstName, last_name: account.lastName },
  };
}

/** The account an email names (./accounts.ts), with what sign-in needs of it, on the account's database. */
function accountQuery(db: Db, tenantId: string | null, email: string) {
  return db
    .select({
      id: users.id,
      tenantId: users.tenantId,
      email: users.email,
      passwordHash: users.passwordHash,
      role: users.role,
      firstName: users.firstName,
      lastName: users.lastName,
      isActive: users.isActive,
    })
    .from(users)
    .where(accountFilter(tenantId, email))
    .limit(1);
}

/** GET /auth/me: the caller's profile; school users add their school's billing summary. */
export function profileOf(actor: Actor, now: number) {
  const base = { id: actor.userId, email: actor.email, role: actor.role, first_name: actor.firstName, last_name: actor.lastName };
  if (actor.homeTenantId === null || !actor.tenant) return base;
  return { ...base, tenant: billingSummary(actor.tenant, now) };
}

/**
 * POST /auth/schools: active schools where the email has an active account, optionally by cabinet.
 * Accounts live in the school shards: one statement per shard, all at once (one round trip), then
 * the schools' titles from the control database.
 */
export async function listSchoolsForEmail(ctx: ServiceContext, input: { email: string; scope?: "admin" | "student" | "" }) {
  const roles: Role[] = input.scope === "admin" ? ["admin", "curator"] : input.scope === "student" ? ["student"] : ["admin", "curator", "student"];
  const perShard = await Promise.all(
    shardNames(ctx.env).map((shard) =>
      shardDb(ctx.env, shard)
        .select({ tenantId: users.tenantId, role: users.role })
        .from(users)
        .where(and(eq(users.email, input.email), eq(users.isActive, true), isNull(users.deletedAt), inArray(users.role, roles))),
    ),
  );
  const accounts = perShard.flat().filter((account): account is { tenantId: string; role: Role } => account.tenantId !== null);
  if (accounts.length === 0) return [];
  const schools = await ctx.db
    .select({ id: tenants.id, subdomain: tenants.subdomain, title: tenants.title })
    .from(tenants)
    .where(and(idIn(tenants.id, accounts.map((account) => account.tenantId)), eq(tenants.status, "active"), isNull(tenants.deletedAt)));
  const byId = new Map(schools.map((school) => [school.id, school]));
  return accounts
    .flatMap((account) => {
      const school = byId.get(account.tenantId);
      return school ? [{ subdomain: school.subdomain, title: school.title, role: account.role }] : [];
    })
    .sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
}
