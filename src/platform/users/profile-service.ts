import { platformOf } from "../../core/school";
import { and, eq, sql } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { authErrors } from "../auth/errors";
import { isLocked, lockQuery, loginGuardKeys, recordFailure } from "../auth/login-guard";
import { hashPassword, verifyPassword } from "../auth/password";
import { users } from "../../db/schema";
import { changedRows, runBatch } from "../../core/db/batch";
import { liveRow, liveRowWhere } from "../../core/db/live-row";
import { revokeSessionsWithEvents } from "../devices/events";
import { devicePolicyQuery, effectivePolicy } from "../devices/policy";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors, unauthorized } from "../../core/http/errors";
import { billingSummary } from "../billing/state";
import { iso } from "../../core/lib/clock";
import { dispatchQueued, enqueue, sessionInstallationSql } from "../notifications/enqueue";
import { imageRef } from "../media/asset-ref";
import { usersErrors } from "./errors";
import { toUserObject, userColumns, type UserRow } from "./read";
import type { PasswordChangeBody, ProfilePatchBody } from "./schemas";
import { userChangeWebhooks } from "./webhooks";
import { inSchool } from "../../core/db/conditions";

/** The caller's own live account in the addressed school; the superadmin has none there. */
function self(ctx: SchoolCtx) {
  return liveRowWhere(users, ctx.tenantId, ctx.actor.userId);
}

async function toProfile(ctx: SchoolCtx, row: UserRow) {
  const { tenant } = ctx;
  return {
    ...(await toUserObject(ctx, row)),
    tenant: {
      id: tenant.id,
      subdomain: tenant.subdomain,
      title: tenant.title,
      ...billingSummary(tenant, ctx.clock.now()),
    },
  };
}

/** GET /t/me/profile: the caller's own user object plus a summary of their school. */
export async function getProfile(ctx: SchoolCtx) {
  return toProfile(ctx, await liveRow(ctx, users, ctx.actor.userId, coreErrors.UNAUTHORIZED));
}

/**
 * PATCH /t/me/profile: names and avatar only; role, email and status stay with the admins. An
 * avatar given as an asset id must be a confirmed image of the school.
 */
export async function updateProfile(ctx: SchoolCtx, input: { body: z.infer<typeof ProfilePatchBody> }) {
  const { body } = input;
  await imageRef.check(ctx, { tenantId: ctx.tenantId, field: "avatar", value: body.avatar, invalid: coreErrors.INVALID_REQUEST_BODY });
  const changes = {
    ...(body.first_name !== undefined ? { firstName: body.first_name } : {}),
    ...(body.last_name !== undefined ? { lastName: body.last_name } : {}),
    ...(body.avatar !== undefined ? { avatar: body.avatar } : {}),
  };
  if (Object.keys(changes).length === 0) return getProfile(ctx);
  const now = ctx.clock.now();
  const update = ctx.db
    .update(users)
    .set({ ...changes, updatedAt: now })
    .where(self(ctx))
    .returning(userColumns);
  // Ahead of the update: the event reads the row before it, so a PATCH that changes nothing writes none.
  const hooks = userChangeWebhooks(ctx, eq(users.id, ctx.actor.userId), body, now);
  const [row] = hooks.length === 0 ? await update : ((await runBatch(ctx, [...hooks, update])).at(-1) as UserRow[]);
  if (!row) throw unauthorized();
  await dispatchQueued(ctx);
  return toProfile(ctx, row);
}

/**
 * POST /t/me/password. The new hash is written only over the hash that was verified (a
 * concurrent change makes this one fail), and under the school's revoke_on_password_change
 * policy the user's other sessions end in the same batch; the current one stays signed in.
 */
export async function changeOwnPassword(ctx: SchoolCtx, input: { body: z.infer<typeof PasswordChangeBody> }) {
  const { actor } = ctx;
  const { body } = input;
  // Guesses of the current password share the sign-in lock of this (school, email): a stolen
  // access token must not become an unlimited password oracle.
  const guard = loginGuardKeys(ctx.tenant.subdomain, actor.email, null);
  // The sign-in counters are the control database's: read alongside the shard's batch.
  const platform = platformOf(ctx);
  const [[accounts, policyRows], locks] = await Promise.all([
    ctx.db.batch([ctx.db.select({ passwordHash: users.passwordHash }).from(users).where(self(ctx)).limit(1), devicePolicyQuery(ctx, ctx.tenantId)]),
    lockQuery(platform, guard),
  ]);
  const account = accounts[0];
  if (!account) throw unauthorized();
  if (isLocked(locks, ctx.clock.now())) throw new ApiError(authErrors.SIGN_IN_LOCKED);
  const check = await verifyPassword(body.current_password, account.passwordHash, ctx.config.passwordPepper);
  if (!check.valid) {
    const { locked } = await recordFailure(platform, guard);
    throw new ApiError(locked ? authErrors.SIGN_IN_LOCKED : usersErrors.INVALID_CURRENT_PASSWORD);
  }
  // After the check: a wrong current password keeps its own answer whatever the new one is.
  if (body.new_password === body.current_password) throw new ApiError(usersErrors.SAME_PASSWORD);

  const now = ctx.clock.now();
  const newHash = await hashPassword(body.new_password, ctx.config.passwordPepper);
  const update = ctx.db
    .update(users)
    .set({ passwordHash: newHash, updatedAt: now })
    .where(and(self(ctx), eq(users.passwordHash, account.passwordHash)))
    .returning({ id: users.id });
  const changedByThisRequest = sql`EXISTS (SELECT 1 FROM users WHERE id = ${actor.userId} AND ${inSchool(ctx.tenantId)} AND password_hash = ${newHash})`;

  const notice = await enqueue(
    ctx,
    "security.password_changed",
    { token: "user_other_devices", userId: actor.userId, excludeInstallationId: sessionInstallationSql(actor.sessionId) },
    { changed_at: iso(now) },
    { id: actor.userId },
    `security.password_changed:${actor.userId}:${now}`,
    { when: changedByThisRequest },
  );

  if (!effectivePolicy(policyRows[0]).revokeOnPasswordChange) {
    const [changed] = await ctx.db.batch([update, notice]);
    if (changed.length === 0) throw new ApiError(usersErrors.INVALID_CURRENT_PASSWORD);
    await dispatchQueued(ctx);
    return { password_changed: true as const, other_sessions_revoked: 0 };
  }
  const [changed, , revoked] = await ctx.db.batch([
    update,
    notice,
    ...revokeSessionsWithEvents(ctx, {
      tenantId: ctx.tenantId,
      userIds: [actor.userId],
      reason: "password_change",
      // A legacy token has no session: then every session of the user ends.
      scope: actor.sessionId ? sql`s.id <> ${actor.sessionId} AND ${changedByThisRequest}` : changedByThisRequest,
    }),
  ]);
  if (changed.length === 0) throw new ApiError(usersErrors.INVALID_CURRENT_PASSWORD);
  await dispatchQueued(ctx);
  return { password_changed: true as const, other_sessions_revoked: changedRows(revoked) };
}
