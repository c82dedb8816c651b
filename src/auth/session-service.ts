import { and, eq, isNull, sql } from "drizzle-orm";
import { authDevices, sessions, tenants, users } from "../db/schema";
import { DEFAULT_DEVICE_POLICY, type DevicePolicy } from "../devices/policy";
import type { Role, ServiceContext } from "../http/context";
import { ApiError, unauthorized } from "../http/errors";
import { DAY_MS, MINUTE_MS } from "../lib/clock";
import { randomSecret, sha256Hex } from "../lib/crypto";
import { isUuid, uuidv7 } from "../lib/ids";
import { signAccessToken } from "./jwt";

export interface ClientInfo {
  /** Sent an `Origin` or `Sec-Fetch-Site` header (DESIGN.md): refresh secret only in a cookie, platform `web`. */
  isBrowser: boolean;
  ip: string | null;
  userAgent: string | null;
}

export interface DeviceDescription {
  installationId?: string;
  platform: "web" | "ios" | "android";
  name?: string;
  osName?: string;
  osVersion?: string;
  browserName?: string;
  browserVersion?: string;
  appVersion?: string;
}

export interface IssuedSession {
  token: string;
  accessExpiresAt: number;
  refreshExpiresAt: number;
  sessionId: string;
  authDeviceId: string;
  /** `<session_id>.<secret>`: JSON for native clients, the cookie value for browsers. */
  refreshToken: string;
}

/** Splits `<session_id>.<secret>`; null when it is not of that form. */
export function parseRefreshToken(token: string): { sessionId: string; secret: string } | null {
  const dot = token.indexOf(".");
  if (dot <= 0) return null;
  const sessionId = token.slice(0, dot);
  const secret = token.slice(dot + 1);
  if (!isUuid(sessionId) || secret.length < 20 || secret.length > 200) return null;
  return { sessionId, secret };
}

function family(ctx: ServiceContext, sessionId: string) {
  return ctx.env.SESSION_FAMILY.get(ctx.env.SESSION_FAMILY.idFromName(sessionId));
}

/**
 * Creates a managed session for a signed-in user: the device row (one per installation), the
 * session row and its refresh family. `statements` are extra writes committed in the same batch.
 */
export async function startSession(
  ctx: ServiceContext,
  input: {
    user: { id: string; tenantId: string | null; role: Role };
    policy: DevicePolicy;
    device: DeviceDescription;
    client: ClientInfo;
    statements?: BatchItem[];
  },
): Promise<IssuedSession> {
  const now = ctx.clock.now();
  const sessionId = uuidv7(now);
  const secret = randomSecret(32);
  const absoluteExpiresAt = now + input.policy.sessionAbsoluteLifetimeDays * DAY_MS;
  const refreshExpiresAt = Math.min(now + ctx.config.refreshTokenTtlDays * DAY_MS, absoluteExpiresAt);
  const { device, user } = input;

  const deviceValues = {
    tenantId: user.tenantId,
    userId: user.id,
    installationId: device.installationId ?? null,
    platform: device.platform,
    name: device.name ?? null,
    osName: device.osName ?? null,
    osVersion: device.osVersion ?? null,
    browserName: device.browserName ?? null,
    browserVersion: device.browserVersion ?? null,
    appVersion: device.appVersion ?? null,
    lastSeenAt: now,
    updatedAt: now,
  };
  const newDeviceId = uuidv7(now);
  const deviceWrite = device.installationId
    ? ctx.db
        .insert(authDevices)
        .values({ id: newDeviceId, createdAt: now, ...deviceValues })
        .onConflictDoUpdate({
          target: [authDevices.userId, authDevices.installationId],
          targetWhere: sql`installation_id IS NOT NULL`,
          set: { ...deviceValues, tenantId: sql`tenant_id`, userId: sql`user_id`, installationId: sql`installation_id` },
        })
        .returning({ id: authDevices.id })
    : ctx.db.insert(authDevices).values({ id: newDeviceId, createdAt: now, ...deviceValues }).returning({ id: authDevices.id });

  // The device id is whatever row the upsert landed on, so the session references it by selector.
  const deviceIdExpression = device.installationId
    ? sql`(SELECT id FROM auth_devices WHERE user_id = ${user.id} AND installation_id = ${device.installationId})`
    : sql`${newDeviceId}`;

  await family(ctx, sessionId).start({ secretHash: await sha256Hex(secret), refreshExpiresAt, now });
  const [deviceRows] = await ctx.db.batch([
    deviceWrite,
    ctx.db.insert(sessions).values({
      id: sessionId,
      tenantId: user.tenantId,
      userId: user.id,
      authDeviceId: deviceIdExpression as unknown as string,
      isBrowser: input.client.isBrowser,
      ip: input.client.ip,
      userAgent: input.client.userAgent?.slice(0, 512) ?? null,
      lastActivityAt: now,
      idleExpiresAt: now + input.policy.sessionIdleTimeoutMinutes * MINUTE_MS,
      expiresAt: absoluteExpiresAt,
      createdAt: now,
    }),
    ...(input.statements ?? []),
  ] as unknown as [typeof deviceWrite, ...BatchItem[]]);
  const authDeviceId = deviceRows[0]!.id;

  const access = await signAccessToken(ctx.config, { user_id: user.id, tenant_id: user.tenantId, role: user.role, sid: sessionId }, now);
  return {
    token: access.token,
    accessExpiresAt: access.expiresAt,
    refreshExpiresAt,
    sessionId,
    authDeviceId,
    refreshToken: `${sessionId}.${secret}`,
  };
}

export type BatchItem = Parameters<ServiceContext["db"]["batch"]>[0][number];

/** The session with its user and school, for refresh and logout; null when the session is not usable. */
async function loadLiveSession(ctx: ServiceContext, sessionId: string) {
  const [row] = await ctx.db
    .select({
      sessionId: sessions.id,
      authDeviceId: sessions.authDeviceId,
      revokedAt: sessions.revokedAt,
      idleExpiresAt: sessions.idleExpiresAt,
      expiresAt: sessions.expiresAt,
      userId: users.id,
      userTenantId: users.tenantId,
      role: users.role,
      isActive: users.isActive,
      subdomain: tenants.subdomain,
      tenantDeletedAt: tenants.deletedAt,
      idleTimeoutMinutes: sql<number | null>`(SELECT session_idle_timeout_minutes FROM device_policies WHERE tenant_id = ${sessions.tenantId})`,
    })
    .from(sessions)
    .innerJoin(users, and(eq(users.id, sessions.userId), isNull(users.deletedAt)))
    .leftJoin(tenants, eq(tenants.id, users.tenantId))
    .where(eq(sessions.id, sessionId))
    .limit(1);
  return row ?? null;
}

type LiveSession = NonNullable<Awaited<ReturnType<typeof loadLiveSession>>>;

function assertUsable(row: LiveSession | null, now: number, selectors: { authDeviceId?: string; subdomain?: string | null }): LiveSession {
  if (!row || row.revokedAt !== null || row.idleExpiresAt <= now || row.expiresAt <= now || !row.isActive) throw unauthorized();
  if (row.userTenantId !== null && (row.subdomain === null || row.tenantDeletedAt !== null)) throw unauthorized();
  if (selectors.authDeviceId !== undefined && selectors.authDeviceId !== row.authDeviceId) throw unauthorized();
  if (selectors.subdomain && selectors.subdomain !== (row.subdomain ?? "")) throw unauthorized();
  return row;
}

export interface RefreshInput {
  sessionId: string;
  secret: string;
  authDeviceId?: string;
  subdomain?: string | null;
}

/**
 * Rotates the refresh secret in the session's Durable Object. A replay of the just-rotated
 * secret inside the grace window is a tab race (409); after it, or of any older secret, it is
 * confirmed reuse and the whole session is revoked.
 */
export async function refreshSession(ctx: ServiceContext, input: RefreshInput): Promise<IssuedSession> {
  const now = ctx.clock.now();
  const session = assertUsable(await loadLiveSession(ctx, input.sessionId), now, input);
  const nextSecret = randomSecret(32);
  const [presentedHash, nextHash] = await Promise.all([sha256Hex(input.secret), sha256Hex(nextSecret)]);
  const result = await family(ctx, input.sessionId).rotate({
    presentedHash,
    nextHash,
    now,
    graceMs: ctx.config.refreshGraceMs,
    refreshExpiresAt: Math.min(now + ctx.config.refreshTokenTtlDays * DAY_MS, session.expiresAt),
  });
  switch (result.outcome) {
    case "stale":
      throw new ApiError(409, "stale_refresh_token");
    case "reuse":
      await revokeSession(ctx, input.sessionId, "refresh_token_reuse");
      throw unauthorized();
    case "invalid":
      throw unauthorized();
    case "rotated":
      break;
  }
  const idleMinutes = session.idleTimeoutMinutes ?? DEFAULT_DEVICE_POLICY.sessionIdleTimeoutMinutes;
  await ctx.db
    .update(sessions)
    .set({ lastActivityAt: now, idleExpiresAt: now + idleMinutes * MINUTE_MS })
    .where(and(eq(sessions.id, input.sessionId), isNull(sessions.revokedAt)));
  const access = await signAccessToken(
    ctx.config,
    { user_id: session.userId, tenant_id: session.userTenantId, role: session.role, sid: input.sessionId },
    now,
  );
  return {
    token: access.token,
    accessExpiresAt: access.expiresAt,
    refreshExpiresAt: result.refreshExpiresAt,
    sessionId: input.sessionId,
    authDeviceId: session.authDeviceId,
    refreshToken: `${input.sessionId}.${nextSecret}`,
  };
}

/**
 * Logout: the presented secret must be the session's current or just-rotated one. Repeating it
 * for a session already ended is safe (answers the same).
 */
export async function endSession(ctx: ServiceContext, input: RefreshInput): Promise<void> {
  const [row] = await ctx.db
    .select({ authDeviceId: sessions.authDeviceId, tenantId: sessions.tenantId, subdomain: tenants.subdomain })
    .from(sessions)
    .leftJoin(tenants, eq(tenants.id, sessions.tenantId))
    .where(eq(sessions.id, input.sessionId))
    .limit(1);
  if (!row) throw unauthorized();
  if (input.authDeviceId !== undefined && input.authDeviceId !== row.authDeviceId) throw unauthorized();
  if (input.subdomain && input.subdomain !== (row.subdomain ?? "")) throw unauthorized();
  const generation = await family(ctx, input.sessionId).identify(await sha256Hex(input.secret));
  if (generation !== "current" && generation !== "previous") throw unauthorized();
  await revokeSession(ctx, input.sessionId, "logout");
}

export async function revokeSession(ctx: ServiceContext, sessionId: string, reason: string): Promise<void> {
  await ctx.db
    .update(sessions)
    .set({ revokedAt: ctx.clock.now(), revokeReason: reason })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}
