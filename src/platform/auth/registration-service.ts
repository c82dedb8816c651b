import { and, eq, gt, isNull, ne, sql } from "drizzle-orm";
import { changedRows, insertWhere, isUniqueViolation } from "../../core/db/batch";
import type { z } from "@hono/zod-openapi";
import { emailVerificationTokens, tenants, users } from "../../db/schema";
import { enqueueEmails, queueEmail } from "../email/outbox";
import type { Locale } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso, MINUTE_MS } from "../../core/lib/clock";
import { randomSecret, sha256Hex } from "../../core/lib/crypto";
import { uuidv7 } from "../../core/lib/ids";
import { signAccessToken } from "./jwt";
import { isReservedSchoolName, newSchoolRow, schoolNamesFree } from "../tenants/new-school";
import { mainDomainUrl } from "../email/links";
import { authErrors } from "./errors";
import { hashPassword } from "./password";
import type { RegisterBody } from "./schemas";
import { inSchool } from "../../core/db/conditions";

const RESEND_COOLDOWN_MS = MINUTE_MS;

/** The verification email: a link to the main domain carrying the single-use token. */
function verificationEmail(
  ctx: ServiceContext,
  input: { tenantId: string; to: string; locale: Locale; schoolTitle: string; firstName: string; token: string; expiresAt: number },
) {
  return queueEmail(ctx, {
    tenantId: input.tenantId,
    to: input.to,
    kind: "verification",
    locale: input.locale,
    variables: {
      schoolTitle: input.schoolTitle,
      firstName: input.firstName,
      verifyUrl: mainDomainUrl(ctx, `/verify-email?token=${encodeURIComponent(input.token)}`),
      expiresAt: iso(input.expiresAt),
    },
    meta: { token: input.token },
  });
}

/**
 * Self-service sign-up: school (`pending`, `trial`), its first admin, the trial period, the
 * verification token and the verification email, all in one `db.batch`. The school is inserted
 * only while its names are free and the email founds no other live school; every other row is
 * conditional on the school row, so a lost race writes nothing and answers `duplicate key`.
 */
export async function registerSchool(ctx: ServiceContext, input: { body: z.infer<typeof RegisterBody>; locale: Locale }) {
  const { body } = input;
  const subdomain = body.tenant_subdomain ?? body.tenant_slug;
  if (isReservedSchoolName(body.tenant_slug, subdomain)) throw new ApiError(authErrors.SCHOOL_OR_EMAIL_TAKEN);
  const now = ctx.clock.now();
  const tenantId = uuidv7(now);
  const userId = uuidv7(now);
  const token = randomSecret(32);
  const verificationExpiresAt = now + ctx.config.emailVerificationTtlMs;
  const email = verificationEmail(ctx, {
    tenantId,
    to: body.email,
    locale: input.locale,
    schoolTitle: body.tenant_title,
    firstName: body.first_name,
    token,
    expiresAt: verificationExpiresAt,
  });
  const emailFree = sql`NOT EXISTS (SELECT 1 FROM users u LEFT JOIN tenants t ON t.id = u.tenant_id
    WHERE u.email = ${body.email} AND u.deleted_at IS NULL AND u.role IN ('admin', 'superadmin')
      AND (u.tenant_id IS NULL OR t.deleted_at IS NULL))`;
  const schoolCreated = sql`EXISTS (SELECT 1 FROM tenants WHERE id = ${tenantId})`;

  let results;
  try {
    results = await ctx.db.batch([
      insertWhere(
        ctx,
        tenants,
        newSchoolRow(ctx, { id: tenantId, title: body.tenant_title, slug: body.tenant_slug, subdomain }),
        sql`${schoolNamesFree(body.tenant_slug, subdomain)} AND ${emailFree}`,
      ),
      insertWhere(
        ctx,
        users,
        {
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
        },
        schoolCreated,
      ),
      insertWhere(
        ctx,
        emailVerificationTokens,
        { id: uuidv7(now), tenantId, userId, tokenHash: await sha256Hex(token), expiresAt: verificationExpiresAt, createdAt: now },
        schoolCreated,
      ),
      email.insertWhere(schoolCreated),
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(authErrors.SCHOOL_OR_EMAIL_TAKEN);
    throw err;
  }
  if (changedRows(results[0]) !== 1) throw new ApiError(authErrors.SCHOOL_OR_EMAIL_TAKEN);
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
          sql`EXISTS (SELECT 1 FROM tenants WHERE id = ${emailVerificationTokens.tenantId} AND deleted_at IS NULL)`,
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
          isNull(tenants.deletedAt),
          consumedByThisRequest,
        ),
      ),
  ]);
  const row = consumed[0];
  if (!row) throw new ApiError(authErrors.INVALID_EMAIL_VERIFICATION);

  const [user] = await ctx.db
    .select({ id: users.id, email: users.email, role: users.role, subdomain: tenants.subdomain })
    .from(users)
    .innerJoin(tenants, and(eq(tenants.id, users.tenantId), isNull(tenants.deletedAt)))
    .where(and(eq(users.id, row.userId), inSchool(users, row.tenantId), isNull(users.deletedAt)))
    .limit(1);
  if (!user) throw new ApiError(authErrors.INVALID_EMAIL_VERIFICATION);

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

const NEUTRAL_RESEND_MESSAGE = "If a pending school matches this email, a new verification link has been sent.";

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
  const email = verificationEmail(ctx, {
    tenantId: account.tenantId,
    to: input.email,
    locale: input.locale,
    schoolTitle: account.schoolTitle,
    firstName: account.firstName,
    token,
    expiresAt,
  });
  const outsideCooldown = sql`NOT EXISTS (SELECT 1 FROM email_verification_tokens WHERE user_id = ${account.userId} AND created_at > ${now - RESEND_COOLDOWN_MS})`;
  const issued = sql`EXISTS (SELECT 1 FROM email_verification_tokens WHERE id = ${tokenId})`;
  const [inserted] = await ctx.db.batch([
    insertWhere(
      ctx,
      emailVerificationTokens,
      { id: tokenId, tenantId: account.tenantId, userId: account.userId, tokenHash: await sha256Hex(token), expiresAt, createdAt: now },
      outsideCooldown,
    ),
    ctx.db
      .update(emailVerificationTokens)
      .set({ invalidatedAt: now })
      .where(
        and(
          eq(emailVerificationTokens.userId, account.userId),
          ne(emailVerificationTokens.id, tokenId),
          isNull(emailVerificationTokens.usedAt),
          isNull(emailVerificationTokens.invalidatedAt),
          issued,
        ),
      ),
    email.insertWhere(issued),
  ]);
  // Inside the cooldown nothing was issued; the answer stays the same.
  if (changedRows(inserted) === 1) await enqueueEmails(ctx, [email.id]);
  return { message: NEUTRAL_RESEND_MESSAGE };
}
