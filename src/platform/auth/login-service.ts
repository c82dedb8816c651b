import { and, eq, inArray, isNull } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { billingSummary } from "../billing/state";
import { tenants, users } from "../../db/schema";
import { sealLoginDeviceToken } from "../devices/push-registration";
import { signInDevice } from "../devices/sign-in";
import type { Actor, Role, ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import type { BatchItem } from "../../core/db/batch";
import { accountFilter, liveSchoolOfUser } from "./accounts";
import { authErrors } from "./errors";
import { clearPairStatement, isLocked, lockQuery, loginGuardKeys, recordFailure } from "./login-guard";
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from "./password";
import type { LoginBody } from "./schemas";
import type { ClientInfo, IssuedSession } from "./session-service";

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

  const [locks, candidates] = await ctx.db.batch([lockQuery(ctx, keys), accountQuery(ctx, subdomain, body.email)]);
  if (isLocked(locks, now)) {
    await recordFailure(ctx, keys);
    throw new ApiError(authErrors.SIGN_IN_LOCKED);
  }

  const account = candidates[0];
  const check = await verifyPassword(body.password, account?.passwordHash ?? DUMMY_PASSWORD_HASH, ctx.config.passwordPepper);
  // An inactive account counts like a wrong password, so the lock cannot tell a right guess apart.
  if (!account || !check.valid || !account.isActive) {
    const { locked } = await recordFailure(ctx, keys);
    throw new ApiError(locked ? authErrors.SIGN_IN_LOCKED : authErrors.INVALID_CREDENTIALS);
  }
  if (account.tenantStatus === "pending") throw new ApiError(authErrors.EMAIL_NOT_VERIFIED);

  // Sealed before anything is written: a token that cannot be stored fails the login (503).
  // The platform has no push registry, so a superadmin's device_token is not kept.
  const push =
    body.device_token && account.tenantId !== null
      ? await sealLoginDeviceToken(ctx, body.device_token, { tenantId: account.tenantId, installationId: body.installation_id ?? null })
      : null;

  const statements: BatchItem[] = [clearPairStatement(ctx, keys)];
  if (check.needsRehash) {
    const rehashed = await hashPassword(body.password, ctx.config.passwordPepper);
    statements.push(ctx.db.update(users).set({ passwordHash: rehashed }).where(eq(users.id, account.id)));
  }

  const session = await signInDevice(ctx, {
    user: { id: account.id, tenantId: account.tenantId, role: account.role },
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

/** The account an email names (src/platform/auth/accounts.ts), with what sign-in needs of it. */
function accountQuery(ctx: ServiceContext, subdomain: string, email: string) {
  return ctx.db
    .select({
      id: users.id,
      tenantId: users.tenantId,
      email: users.email,
      passwordHash: users.passwordHash,
      role: users.role,
      firstName: users.firstName,
      lastName: users.lastName,
      isActive: users.isActive,
      tenantStatus: tenants.status,
    })
    .from(users)
    .leftJoin(tenants, liveSchoolOfUser)
    .where(accountFilter(subdomain, email))
    .limit(1);
}

/** GET /auth/me: the caller's profile; school users add their school's billing summary. */
export function profileOf(actor: Actor, now: number) {
  const base = { id: actor.userId, email: actor.email, role: actor.role, first_name: actor.firstName, last_name: actor.lastName };
  if (actor.homeTenantId === null || !actor.tenant) return base;
  return { ...base, tenant: billingSummary(actor.tenant, now) };
}

/** POST /auth/schools: active schools where the email has an active account, optionally by cabinet. */
export async function listSchoolsForEmail(ctx: ServiceContext, input: { email: string; scope?: "admin" | "student" | "" }) {
  const roles: Role[] = input.scope === "admin" ? ["admin", "curator"] : input.scope === "student" ? ["student"] : ["admin", "curator", "student"];
  const rows = await ctx.db
    .select({ subdomain: tenants.subdomain, title: tenants.title, role: users.role })
    .from(users)
    .innerJoin(tenants, and(eq(tenants.id, users.tenantId), eq(tenants.status, "active"), isNull(tenants.deletedAt)))
    .where(and(eq(users.email, input.email), eq(users.isActive, true), isNull(users.deletedAt), inArray(users.role, roles)))
    .orderBy(tenants.title);
  return rows;
}
