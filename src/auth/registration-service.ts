import { and, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { emailVerificationTokens, tenants, users } from "../db/schema";
import { enqueueEmails, queueEmail } from "../email/outbox";
import type { Locale } from "../env";
import type { ServiceContext } from "../http/context";
import { ApiError } from "../http/errors";
import { DAY_MS, iso, MINUTE_MS } from "../lib/clock";
import { randomSecret, sha256Hex } from "../lib/crypto";
import { uuidv7 } from "../lib/ids";
import { signAccessToken } from "./jwt";
import { hashPassword } from "./password";
import type { RegisterBody } from "./schemas";

const RESEND_COOLDOWN_MS = MINUTE_MS;
const DUPLICATE = () => new ApiError(400, "duplicate key", "The slug, subdomain or email is already taken.");

export function mainDomainUrl(ctx: ServiceContext, path: string): string {
  return `${ctx.config.appUrlScheme}://${ctx.config.appDomain}${path}`;
}

export function schoolUrl(ctx: ServiceContext, subdomain: string, path: string): string {
  return `${ctx.config.appUrlScheme}://${subdomain}.${ctx.config.appDomain}${path}`;
}

/**
 * Self-service sign-up: school (`pending`, `trial`), its first admin, the trial period, the
 * verification token and the verification email, all in one `db.batch`.
 */
export async function registerSchool(ctx: ServiceContext, input: { body: z.infer<typeof RegisterBody>; locale: Locale }) {
  const { body } = input;
  const subdomain = body.tenant_subdomain ?? body.tenant_slug;
  const taken = await ctx.db
    .select({ id: tenants.id })
    .from(tenants)
    .where(and(isNull(tenants.deletedAt), or(inArray(tenants.slug, [body.tenant_slug, subdomain]), inArray(tenants.subdomain, [body.tenant_slug, subdomain]))))
    .union(
      ctx.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.email, body.email), inArray(users.role, ["admin", "superadmin"]), isNull(users.deletedAt))),
    )
    .limit(1);
  if (taken.length > 0) throw DUPLICATE();

  const now = ctx.clock.now();
  const tenantId = uuidv7(now);
  const userId = uuidv7(now);
  const token = randomSecret(32);
  const verificationExpiresAt = now + ctx.config.emailVerificationTtlMs;
  const email = queueEmail(ctx, {
    tenantId,
    to: body.email,
    kind: "verification",
    locale: input.locale,
    variables: {
      schoolTitle: body.tenant_title,
      firstName: body.first_name,
      verifyUrl: mainDomainUrl(ctx, `/verify-email?token=${encodeURIComponent(token)}`),
      expiresAt: iso(verificationExpiresAt),
    },
    meta: { token },
  });

  try {
    await ctx.db.batch([
      ctx.db.insert(tenants).values({
        id: tenantId,
        title: body.tenant_title,
        slug: body.tenant_slug,
        subdomain,
        status: "pending",
        planState: "trial",
        expiresAt: now + ctx.config.trialDays * DAY_MS,
        createdAt: now,
        updatedAt: now,
      }),
      ctx.db.insert(users).values({
        id: userId,
        tenantId,
        email: body.email,
        passwordHash: await hashPassword(body.password, ctx.config.passwordPepper),
        firstName: body.first_name,
        lastName: body.last_name,
        role: "admin",
        isActive: true,
        createdAt: now,
        updatedAt: now,
      }),
      ctx.db.insert(emailVerificationTokens).values({
        id: uuidv7(now),
        tenantId,
        userId,
        tokenHash: await sha256Hex(token),
        expiresAt: verificationExpiresAt,
        createdAt: now,
      }),
      email.insert,
    ]);
  } catch (err) {
    // A concurrent sign-up won the unique index between the check and the batch.
    if (String(err).includes("UNIQUE constraint failed")) throw DUPLICATE();
    throw err;
  }
  await enqueueEmails(ctx, [email.id]);
  return { verification_required: true, email: body.email, verification_expires_at: iso(verificationExpiresAt) };
}

/**
 * Consumes a verification token (single use, conditional write) and activates the school and the
 * admin's email in the same batch; the follow-up writes only act if this request consumed it.
 */
export async function verifyEmail(ctx: ServiceContext, input: { token: string }) {
  const now = ctx.clock.now();
  const tokenHash = await sha256Hex(input.token);
  const consumedByThisRequest = sql`EXISTS (SELECT 1 FROM email_verification_tokens WHERE token_hash = ${tokenHash} AND used_at = ${now})`;
  const [consumed] = await ctx.db.batch([
    ctx.db
      .update(emailVerificationTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(emailVerificationTokens.tokenHash, tokenHash),
          isNull(emailVerificationTokens.usedAt),
          isNull(emailVerificationTokens.invalidatedAt),
          gt(emailVerificationTokens.expiresAt, now),
        ),
      )
      .returning({ userId: emailVerificationTokens.userId, tenantId: emailVerificationTokens.tenantId }),
    ctx.db
      .update(users)
      .set({ emailVerifiedAt: now, updatedAt: now })
      .where(and(sql`${users.id} = (SELECT user_id FROM email_verification_tokens WHERE token_hash = ${tokenHash})`, consumedByThisRequest)),
    ctx.db
      .update(tenants)
      .set({ status: "active", updatedAt: now })
      .where(
        and(
          sql`${tenants.id} = (SELECT tenant_id FROM email_verification_tokens WHERE token_hash = ${tokenHash})`,
          eq(tenants.status, "pending"),
          consumedByThisRequest,
        ),
      ),
  ]);
  const row = consumed[0];
  if (!row) throw new ApiError(400, "invalid_or_expired_email_verification");

  const [user] = await ctx.db
    .select({ id: users.id, email: users.email, role: users.role, subdomain: tenants.subdomain })
    .from(users)
    .innerJoin(tenants, eq(tenants.id, users.tenantId))
    .where(and(eq(users.id, row.userId), eq(users.tenantId, row.tenantId)))
    .limit(1);
  if (!user) throw new ApiError(400, "invalid_or_expired_email_verification");

  const result: { login_required: true; tenant_subdomain: string; user: { id: string; email: string; role: string }; token?: string } = {
    login_required: true,
    tenant_subdomain: user.subdomain,
    user: { id: user.id, email: user.email, role: user.role },
  };
  if (ctx.config.legacyTokenMode === "allow") {
    // Kept for older clients only: a token without `sid`, accepted while the legacy mode allows it.
    result.token = (await signAccessToken(ctx.config, { user_id: user.id, tenant_id: row.tenantId, role: user.role }, now)).token;
  }
  return result;
}

export const NEUTRAL_RESEND_MESSAGE = "If a pending school matches this email, a new verification link has been sent.";

/**
 * Issues a fresh verification link for a pending school's admin, at most once a minute. The new
 * token, the invalidation of older ones and the email are conditional on each other in one batch,
 * so concurrent calls cannot slip past the cooldown. The answer never reveals anything.
 */
export async function resendVerification(ctx: ServiceContext, input: { email: string; subdomain: string; locale: Locale }) {
  const [account] = await ctx.db
    .select({ userId: users.id, tenantId: tenants.id, firstName: users.firstName, schoolTitle: tenants.title })
    .from(users)
    .innerJoin(tenants, and(eq(tenants.id, users.tenantId), eq(tenants.subdomain, input.subdomain), eq(tenants.status, "pending"), isNull(tenants.deletedAt)))
    .where(and(eq(users.email, input.email), eq(users.role, "admin"), isNull(users.deletedAt), isNull(users.emailVerifiedAt)))
    .limit(1);
  if (!account) return { message: NEUTRAL_RESEND_MESSAGE };

  const now = ctx.clock.now();
  const tokenId = uuidv7(now);
  const token = randomSecret(32);
  const expiresAt = now + ctx.config.emailVerificationTtlMs;
  const email = queueEmail(ctx, {
    tenantId: account.tenantId,
    to: input.email,
    kind: "verification",
    locale: input.locale,
    variables: {
      schoolTitle: account.schoolTitle,
      firstName: account.firstName,
      verifyUrl: mainDomainUrl(ctx, `/verify-email?token=${encodeURIComponent(token)}`),
      expiresAt: iso(expiresAt),
    },
    meta: { token },
  });
  // Conditional statements (INSERT … SELECT … WHERE NOT EXISTS) have no drizzle builder: raw D1, still one batch.
  const [insertResult] = await ctx.env.DB.batch([
    ctx.env.DB.prepare(
      `INSERT INTO email_verification_tokens (id, tenant_id, user_id, token_hash, expires_at, created_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6
       WHERE NOT EXISTS (SELECT 1 FROM email_verification_tokens WHERE user_id = ?3 AND created_at > ?7)`,
    ).bind(tokenId, account.tenantId, account.userId, await sha256Hex(token), expiresAt, now, now - RESEND_COOLDOWN_MS),
    ctx.env.DB.prepare(
      `UPDATE email_verification_tokens SET invalidated_at = ?3
       WHERE user_id = ?1 AND id <> ?2 AND used_at IS NULL AND invalidated_at IS NULL
         AND EXISTS (SELECT 1 FROM email_verification_tokens WHERE id = ?2)`,
    ).bind(account.userId, tokenId, now),
  ]);
  // Inside the cooldown nothing was issued; the answer stays the same.
  if (insertResult?.meta.changes !== 1) return { message: NEUTRAL_RESEND_MESSAGE };
  await email.insert;
  await enqueueEmails(ctx, [email.id]);
  return { message: NEUTRAL_RESEND_MESSAGE };
}
