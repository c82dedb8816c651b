import { and, eq, gt, inArray, isNull, ne, sql } from "drizzle-orm";
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
import { signAccessToken } from "../devices/jwt";
import { markedSecret, markedSecretDb } from "../devices/account-db";
import { accountHome } from "./accounts";
import { shardDb, shardNames, type Db } from "../../core/db/client";
import { idIn, inSchool } from "../../core/db/conditions";
import { forSchool, systemActor } from "../../core/school";
import { loadSchool, schoolSummary } from "../schools/lookup";
import { isReservedSchoolName, newSchoolRow, schoolNamesFree, shardForNewSchool } from "../schools/new-school";
import { mainDomainUrl } from "../email/links";
import { authErrors } from "./errors";
import { hashPassword } from "./password";
import type { RegisterBody } from "./schemas";

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
 * verification token and the verification email. The school row (control database) is inserted
 * only while its names are free, so of concurrent sign-ups for one name exactly one gets it; the
 * admin, token and email then go to the school's shard in one batch, and if that batch fails the
 * school row is deleted again, so a failed sign-up leaves no school behind. An email founds at
 * most one live school: checked on every shard before the insert (a check, not a constraint,
 * across databases: two sign-ups with one email in the same instant may both pass).
 */
export async function registerSchool(ctx: ServiceContext, input: { body: z.infer<typeof RegisterBody>; locale: Locale }) {
  const { body } = input;
  const subdomain = body.tenant_subdomain ?? body.tenant_slug;
  if (isReservedSchoolName(body.tenant_slug, subdomain)) throw new ApiError(authErrors.SCHOOL_OR_EMAIL_TAKEN);
  if (await emailFoundsSchool(ctx, body.email)) throw new ApiError(authErrors.SCHOOL_OR_EMAIL_TAKEN);
  const now = ctx.clock.now();
  const tenantId = uuidv7(now);
  const userId = uuidv7(now);
  const shard = await shardForNewSchool(ctx);
  const token = markedSecret(shard, randomSecret(32));
  const verificationExpiresAt = now + ctx.config.emailVerificationTtlMs;
  const schoolRow = newSchoolRow(ctx, { id: tenantId, shard, title: body.tenant_title, slug: body.tenant_slug, subdomain });

  let inserted;
  try {
    [inserted] = await ctx.db.batch([insertWhere(ctx, tenants, schoolRow, schoolNamesFree(body.tenant_slug, subdomain))]);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(authErrors.SCHOOL_OR_EMAIL_TAKEN);
    throw err;
  }
  if (changedRows(inserted) !== 1) throw new ApiError(authErrors.SCHOOL_OR_EMAIL_TAKEN);

  const school = forSchool(ctx, schoolSummary(schoolRow as Parameters<typeof schoolSummary>[0]), systemActor("registration"));
  const email = verificationEmail(school, {
    tenantId,
    to: body.email,
    locale: input.locale,
    schoolTitle: body.tenant_title,
    firstName: body.first_name,
    token,
    expiresAt: verificationExpiresAt,
  });
  try {
    await school.db.batch([
      school.db.insert(users).values({
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
      school.db.insert(emailVerificationTokens).values({ id: uuidv7(now), tenantId, userId, tokenHash: await sha256Hex(token), expiresAt: verificationExpiresAt, createdAt: now }),
      email.insert,
    ]);
  } catch (err) {
    await ctx.db.delete(tenants).where(eq(tenants.id, tenantId));
    throw err;
  }
  await enqueueEmails(school, [email.id]);
  return { verification_required: true, email: body.email, verification_expires_at: iso(verificationExpiresAt) };
}

/** Whether the email is already a live admin of a live school (any shard) or the superadmin's. */
async function emailFoundsSchool(ctx: ServiceContext, email: string): Promise<boolean> {
  const admins = (db: Db) =>
    db
      .select({ tenantId: users.tenantId })
      .from(users)
      .where(and(eq(users.email, email), isNull(users.deletedAt), inArray(users.role, ["admin", "superadmin"])));
  const found = (await Promise.all([admins(ctx.db), ...shardNames(ctx.env).map((shard) => admins(shardDb(ctx.env, shard)))])).flat();
  if (found.some((row) => row.tenantId === null)) return true;
  const schoolIds = found.map((row) => row.tenantId).filter((id): id is string => id !== null);
  if (schoolIds.length === 0) return false;
  const [live] = await ctx.db.select({ id: tenants.id }).from(tenants).where(and(idIn(tenants.id, schoolIds), isNull(tenants.deletedAt))).limit(1);
  return live !== undefined;
}

/**
 * Consumes a verification token (single use, conditional write) and confirms the admin's email in
 * the same batch on the school's shard (the token names it, ../devices/account-db.ts); the school is
 * then activated in the control database, only by the request that consumed the token.
 */
export async function verifyEmail(platform: ServiceContext, input: { token: string }) {
  const now = platform.clock.now();
  const db = markedSecretDb(platform.env, input.token);
  if (!db) throw new ApiError(authErrors.INVALID_EMAIL_VERIFICATION);
  const tokenHash = await sha256Hex(input.token);
  const consumedByThisRequest = sql`EXISTS (SELECT 1 FROM email_verification_tokens WHERE token_hash = ${tokenHash} AND used_at = ${now})`;
  const [pending] = await db
    .select({ tenantId: emailVerificationTokens.tenantId })
    .from(emailVerificationTokens)
    .where(eq(emailVerificationTokens.tokenHash, tokenHash))
    .limit(1);
  const school = pending ? await loadSchool(platform, pending.tenantId) : null;
  if (!school) throw new ApiError(authErrors.INVALID_EMAIL_VERIFICATION);
  const [consumed] = await db.batch([
    db
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
    db
      .update(users)
      .set({ emailVerifiedAt: now, updatedAt: now })
      .where(and(sql`${users.id} = (SELECT user_id FROM email_verification_tokens WHERE token_hash = ${tokenHash})`, consumedByThisRequest)),
  ]);
  const row = consumed[0];
  if (!row) throw new ApiError(authErrors.INVALID_EMAIL_VERIFICATION);
  await platform.db
    .update(tenants)
    .set({ status: "active", updatedAt: now })
    .where(and(eq(tenants.id, row.tenantId), eq(tenants.status, "pending"), isNull(tenants.deletedAt)));

  const [user] = await db
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(and(eq(users.id, row.userId), inSchool(users, row.tenantId), isNull(users.deletedAt)))
    .limit(1);
  if (!user) throw new ApiError(authErrors.INVALID_EMAIL_VERIFICATION);

  const result: { login_required: true; tenant_subdomain: string; user: { id: string; email: string; role: string }; token?: string } = {
    login_required: true,
    tenant_subdomain: school.subdomain,
    user: { id: user.id, email: user.email, role: user.role },
  };
  if (platform.config.legacyTokenMode === "allow") {
    // Kept for older clients only: a token without `sid`, accepted while the legacy mode allows it.
    result.token = (await signAccessToken(platform.config, { user_id: user.id, tenant_id: row.tenantId, role: user.role }, now)).token;
  }
  return result;
}

const NEUTRAL_RESEND_MESSAGE = "If a pending school matches this email, a new verification link has been sent.";

/**
 * Issues a fresh verification link for a pending school's admin, at most once a minute. The new
 * token, the invalidation of older ones and the email are conditional on each other in one batch,
 * so concurrent calls cannot slip past the cooldown. The answer never reveals anything.
 */
export async function resendVerification(platform: ServiceContext, input: { email: string; subdomain: string; locale: Locale }) {
  const home = await accountHome(platform, input.subdomain);
  if (!home?.school || home.school.status !== "pending") return { message: NEUTRAL_RESEND_MESSAGE };
  const { ctx, school } = home;
  const [found] = await ctx.db
    .select({ userId: users.id, firstName: users.firstName })
    .from(users)
    .where(and(eq(users.tenantId, school.id), eq(users.email, input.email), eq(users.role, "admin"), isNull(users.deletedAt), isNull(users.emailVerifiedAt)))
    .limit(1);
  if (!found) return { message: NEUTRAL_RESEND_MESSAGE };
  const account = { ...found, tenantId: school.id, schoolTitle: school.title };

  const now = ctx.clock.now();
  const tokenId = uuidv7(now);
  const token = markedSecret(school.shard, randomSecret(32));
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
