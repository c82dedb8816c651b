import { inSchoolCtx } from "../../core/school";
import { log } from "../../core/lib/log";
import { and, eq, gt, isNull, lt, sql, type SQL } from "drizzle-orm";
import { changedRows, insertWhere } from "../../core/db/batch";
import { passwordResetCodes, users } from "../../db/schema";
import { revokeSessionsWithEvents } from "../devices/events";
import { devicePolicyQuery, effectivePolicy } from "../devices/policy";
import { loginUrl } from "../email/links";
import { enqueueEmails, queueEmail } from "../email/outbox";
import { dispatchQueued, enqueue } from "../notifications/enqueue";
import type { Locale } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { HOUR_MS, iso, MINUTE_MS } from "../../core/lib/clock";
import { hmacHex, randomDigits, timingSafeEqual } from "../../core/lib/crypto";
import { uuidv7 } from "../../core/lib/ids";
import { accountFilter, accountHome } from "./accounts";
import { authErrors } from "./errors";
import { hashPassword } from "./password";

const RESET_CODE_TTL_MS = 15 * MINUTE_MS;
const RESET_CODE_MAX_ATTEMPTS = 5;
const RESET_REQUEST_COOLDOWN_MS = MINUTE_MS;
const RESET_REQUESTS_PER_HOUR = 5;

/** A 6-digit code has little entropy, so it is stored as an HMAC under the server pepper, bound to the user. */
function codeHash(ctx: ServiceContext, userId: string, code: string): Promise<string> {
  return hmacHex(ctx.config.passwordPepper, `password-reset:${userId}:${code}`);
}

/**
 * A set-password code for a user an import creates (05 section 3, docs/decisions/imports.md,
 * "Invitations"): a reset code of the same table, hash and confirmation, valid `validMs` instead of
 * 15 minutes. Its insert is written only when `when` holds (the user row was created by this batch).
 */
export async function setPasswordCode(ctx: ServiceContext, input: { tenantId: string; userId: string; now: number; validMs: number }) {
  const code = randomDigits(6);
  const row = {
    id: uuidv7(input.now),
    tenantId: input.tenantId,
    userId: input.userId,
    codeHash: await codeHash(ctx, input.userId, code),
    expiresAt: input.now + input.validMs,
    createdAt: input.now,
  };
  return { code, insertWhere: (when: SQL) => insertWhere(ctx, passwordResetCodes, row, when) };
}

/**
 * Issues a new code; the previous live code is invalidated in the same batch and a partial unique
 * index keeps one live code per user. The code travels as a password-reset email through the
 * outbox; the console sees it only with the log mail provider. The message is the same whether or not
 * the throttle let a new code out.
 */
export async function requestPasswordReset(platform: ServiceContext, input: { email: string; subdomain: string; locale: Locale }) {
  const home = await accountHome(platform, input.subdomain);
  if (!home) throw new ApiError(authErrors.NO_ACCOUNT_FOR_RESET);
  const { ctx, school } = home;
  const [found] = await ctx.db
    .select({ id: users.id, tenantId: users.tenantId, role: users.role, firstName: users.firstName })
    .from(users)
    .where(accountFilter(school?.id ?? null, input.email))
    .limit(1);
  if (!found) throw new ApiError(authErrors.NO_ACCOUNT_FOR_RESET);
  const account = { ...found, schoolTitle: school?.title ?? null, subdomain: school?.subdomain ?? null };

  const now = ctx.clock.now();
  const code = randomDigits(6);
  const email = queueEmail(ctx, {
    tenantId: account.tenantId,
    to: input.email,
    kind: "password_reset",
    locale: input.locale,
    variables: {
      schoolTitle: account.schoolTitle,
      firstName: account.firstName,
      code,
      validMinutes: RESET_CODE_TTL_MS / MINUTE_MS,
      loginUrl: loginUrl(ctx, account),
    },
    meta: { code },
  });
  const codeId = uuidv7(now);
  // Requests are throttled per user (60 s apart, 5 an hour): each code allows 5 guesses, so without
  // a cap on new codes the 6-digit space could be walked by asking again and again.
  const allowed = sql`NOT EXISTS (SELECT 1 FROM password_reset_codes WHERE user_id = ${account.id} AND created_at > ${now - RESET_REQUEST_COOLDOWN_MS})
    AND (SELECT count(*) FROM password_reset_codes WHERE user_id = ${account.id} AND created_at > ${now - HOUR_MS}) < ${RESET_REQUESTS_PER_HOUR}`;
  const [, issued] = await ctx.db.batch([
    ctx.db
      .update(passwordResetCodes)
      .set({ invalidatedAt: now })
      .where(and(eq(passwordResetCodes.userId, account.id), isNull(passwordResetCodes.usedAt), isNull(passwordResetCodes.invalidatedAt), allowed)),
    insertWhere(
      ctx,
      passwordResetCodes,
      { id: codeId, tenantId: account.tenantId, userId: account.id, codeHash: await codeHash(ctx, account.id, code), expiresAt: now + RESET_CODE_TTL_MS, createdAt: now },
      allowed,
    ),
    email.insertWhere(sql`EXISTS (SELECT 1 FROM password_reset_codes WHERE id = ${codeId})`),
  ]);
  // A throttled request keeps the code already sent and answers the same.
  if (changedRows(issued) === 1) {
    // The code is a secret: it reaches the console only with the log mail provider (local development).
    if (ctx.config.mailProvider === "log") log.info("password reset code", { email: input.email, subdomain: input.subdomain, code });
    await enqueueEmails(ctx, [email.id]);
  }
  return { message: "A confirmation code has been sent. It is valid for 15 minutes; a new one can be requested after a minute." };
}

/**
 * Checks the code against email plus school. Wrong attempts are counted atomically; from the
 * sixth try on (even with the right code) the code is blocked. Success sets the new password,
 * consumes the code and, per the school's policy, revokes the user's sessions, in one batch.
 */
export async function resetPassword(platform: ServiceContext, input: { email: string; subdomain: string; code: string; newPassword: string }) {
  const home = await accountHome(platform, input.subdomain);
  if (!home) throw new ApiError(authErrors.INVALID_RESET_CODE);
  const { ctx, school } = home;
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .select({
      userId: users.id,
      tenantId: users.tenantId,
      codeId: passwordResetCodes.id,
      codeHash: passwordResetCodes.codeHash,
      attempts: passwordResetCodes.attempts,
    })
    .from(users)
    .innerJoin(
      passwordResetCodes,
      and(
        eq(passwordResetCodes.userId, users.id),
        isNull(passwordResetCodes.usedAt),
        isNull(passwordResetCodes.invalidatedAt),
        gt(passwordResetCodes.expiresAt, now),
      ),
    )
    .where(accountFilter(school?.id ?? null, input.email))
    .limit(1);
  if (!row) throw new ApiError(authErrors.INVALID_RESET_CODE);
  if (row.attempts >= RESET_CODE_MAX_ATTEMPTS) throw new ApiError(authErrors.RESET_CODE_BLOCKED);

  if (!timingSafeEqual(await codeHash(ctx, row.userId, input.code), row.codeHash)) {
    const [counted] = await ctx.db
      .update(passwordResetCodes)
      .set({ attempts: sql`${passwordResetCodes.attempts} + 1` })
      .where(eq(passwordResetCodes.id, row.codeId))
      .returning({ attempts: passwordResetCodes.attempts });
    throw new ApiError((counted?.attempts ?? 0) > RESET_CODE_MAX_ATTEMPTS ? authErrors.RESET_CODE_BLOCKED : authErrors.INVALID_RESET_CODE);
  }

  const policyRows = await devicePolicyQuery(ctx, row.tenantId);
  const revokeSessions = effectivePolicy(policyRows[0]).revokeOnPasswordReset;
  const consumedHere = sql`EXISTS (SELECT 1 FROM password_reset_codes WHERE id = ${row.codeId} AND used_at = ${now})`;
  const passwordHash = await hashPassword(input.newPassword, ctx.config.passwordPepper);
  const [consumed] = await ctx.db.batch([
    ctx.db
      .update(passwordResetCodes)
      .set({ usedAt: now })
      .where(and(eq(passwordResetCodes.id, row.codeId), isNull(passwordResetCodes.usedAt), lt(passwordResetCodes.attempts, RESET_CODE_MAX_ATTEMPTS)))
      .returning({ id: passwordResetCodes.id }),
    ctx.db.update(users).set({ passwordHash, updatedAt: now }).where(and(eq(users.id, row.userId), consumedHere)),
    ...(revokeSessions
      ? revokeSessionsWithEvents(ctx, { tenantId: row.tenantId, userIds: [row.userId], reason: "password_reset", scope: consumedHere })
      : []),
    ...(row.tenantId === null
      ? []
      : [
          await enqueue(inSchoolCtx(ctx), "security.password_reset", { token: "user", userId: row.userId }, { changed_at: iso(now) }, { id: row.userId }, `security.password_reset:${row.userId}:${now}`, {
            when: consumedHere,
          }),
        ]),
  ]);
  if (consumed.length === 0) throw new ApiError(authErrors.INVALID_RESET_CODE);
  await dispatchQueued(ctx);
  return { message: "Password has been reset. Sign in with the new password." };
}
