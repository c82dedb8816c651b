import { inSchoolCtx } from "../../core/school";
import { newSessionId, sessionDb } from "./account-db";
import { forSchool, systemActor } from "../../core/school";
import { loadSchool } from "../schools/lookup";
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { authDevices, sessions, users } from "../../db/schema";
import { idleWindowMs, idleWindowSql, lifetimeEndSql, type DevicePolicy } from "./policy";
import { batchable, runBatch, type BatchItem } from "../../core/db/batch";
import { deviceLimitExceededPush } from "./new-device-notification";
import { activeDeviceCountSql, sessionExistsSql } from "./sql";
import type { Role, ServiceContext } from "../../core/http/context";
import { ApiError, unauthorized } from "../../core/http/errors";
import { DAY_MS } from "../../core/lib/clock";
import { randomSecret, sha256Hex } from "../../core/lib/crypto";
import { isUuid, uuidv7 } from "../../core/lib/ids";
import { devicesErrors } from "./errors";
import { signAccessToken } from "./jwt";
import type { SessionFamilyRpc } from "./session-family-state";

// In devices: a session is a device's, and sign-in on a device starts one (docs/decisions/platform-layers.md, "Sessions live in devices").

export interface ClientInfo {
  /** Sent an `Origin` or `Sec-Fetch-Site` header (docs/decisions/architecture.md, "Architecture"): refresh secret only in a cookie, platform `web`. */
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
  const namespace = ctx.env.SESSION_FAMILY;
  return namespace.get(namespace.idFromName(sessionId)) as unknown as SessionFamilyRpc;
}

/** Who the session admission counts against, and what else the session insert requires. */
export interface SessionAdmission {
  /** Enforced limit: the session is created only while fewer than this many other devices are active. */
  enforceLimit: number | null;
  /** Monitored limit (`monitor_only`): the login goes through and the excess is recorded. */
  monitorLimit: number | null;
  /** Devices last seen at or before this instant are inactive and do not count. */
  inactiveCutoff: number;
  /** The device a replacement login gives up: it no longer counts. */
  excludeDeviceId?: string;
  /** Further conditions of the session insert (an unused replacement token). */
  conditions?: SQL[];
}

/** What follow-up statements of the login batch can refer to. */
export interface StartedSessionRefs {
  sessionId: string;
  /** The id a device row gets when this login creates it. */
  newDeviceId: string;
  /** True once the batch's conditional session insert has landed. */
  started: SQL;
  /** True when the session landed on a device this batch created (first login from a new device). */
  onNewDevice: SQL;
}

/**
 * Creates a managed session for a signed-in user: the session row, the device row (one per
 * installation), the login event and the caller's follow-ups, in one D1 batch. The session
 * insert is conditional (`INSERT … SELECT … WHERE`): not from a blocked installation, and under an
 * enforced device limit only while fewer than `limit` other devices are active. Every other
 * statement is conditional on that insert having landed, so a refused login leaves nothing
 * behind, and since D1 runs batches one at a time, concurrent logins cannot overshoot the limit.
 * Returns null when the insert was refused; the caller tells the client why.
 */
export async function startSession(
  ctx: ServiceContext,
  input: {
    /** `shard`: the database the session goes to (null: control); its id says so (./account-db.ts). */
    user: { id: string; tenantId: string | null; role: Role; shard: string | null };
    policy: DevicePolicy;
    device: DeviceDescription;
    client: ClientInfo;
    /** Unconditional writes committed in the same batch. */
    statements?: BatchItem[];
    admission?: SessionAdmission;
    via?: "password" | "device_replacement";
    /** Writes that must happen only with the session (push registration, notifications…). */
    followUps?: (refs: StartedSessionRefs) => BatchItem[] | Promise<BatchItem[]>;
  },
): Promise<IssuedSession | null> {
  const now = ctx.clock.now();
  const sessionId = newSessionId(now, input.user.shard);
  const newDeviceId = uuidv7(now);
  const secret = randomSecret(32);
  const absoluteExpiresAt = now + input.policy.sessionAbsoluteLifetimeDays * DAY_MS;
  const refreshExpiresAt = Math.min(now + ctx.config.refreshTokenTtlDays * DAY_MS, absoluteExpiresAt);
  const { device, user, client, admission } = input;
  const installationId = device.installationId ?? null;

  // The device id is whatever row the installation already has, else the one this batch creates.
  const deviceIdExpression = installationId
    ? sql`COALESCE((SELECT id FROM auth_devices WHERE user_id = ${user.id} AND installation_id = ${installationId}), ${newDeviceId})`
    : sql`${newDeviceId}`;
  const conditions: SQL[] = [...(admission?.conditions ?? [])];
  if (installationId) {
    conditions.push(sql`NOT EXISTS (SELECT 1 FROM auth_devices WHERE user_id = ${user.id} AND installation_id = ${installationId} AND blocked_at IS NOT NULL)`);
  }
  // The monitoring count runs after this batch wrote the session and device: the login's own
  // device (found by installation, or the row this batch creates) must never count.
  const otherActiveDevices = activeDeviceCountSql({
    userId: user.id,
    now,
    inactiveCutoff: admission?.inactiveCutoff ?? 0,
    excludeInstallationId: installationId,
    excludeDeviceIds: [newDeviceId, admission?.excludeDeviceId],
  });
  if (admission?.enforceLimit != null) conditions.push(sql`${otherActiveDevices} < ${admission.enforceLimit}`);

  const started = sessionExistsSql(sessionId);
  const onNewDevice = sql`EXISTS (SELECT 1 FROM sessions WHERE id = ${sessionId} AND auth_device_id = ${newDeviceId})`;

  const sessionInsert = batchable(ctx, sql`
    INSERT INTO sessions (id, tenant_id, user_id, auth_device_id, is_browser, ip, user_agent, last_activity_at, idle_expires_at, expires_at, created_at)
    SELECT ${sessionId}, ${user.tenantId}, ${user.id}, ${deviceIdExpression}, ${client.isBrowser ? 1 : 0}, ${client.ip}, ${client.userAgent},
           ${now}, ${now + idleWindowMs(input.policy)}, ${absoluteExpiresAt}, ${now}
    WHERE ${conditions.length > 0 ? sql.join(conditions, sql` AND `) : sql`1 = 1`}`);

  const deviceUpsert = batchable(ctx, sql`
    INSERT INTO auth_devices (id, tenant_id, user_id, installation_id, platform, name, os_name, os_version, browser_name, browser_version, app_version, last_seen_at, created_at, updated_at)
    SELECT ${newDeviceId}, ${user.tenantId}, ${user.id}, ${installationId}, ${device.platform}, ${device.name ?? null}, ${device.osName ?? null},
           ${device.osVersion ?? null}, ${device.browserName ?? null}, ${device.browserVersion ?? null}, ${device.appVersion ?? null}, ${now}, ${now}, ${now}
    WHERE ${started}
    ON CONFLICT (user_id, installation_id) WHERE installation_id IS NOT NULL DO UPDATE SET
      platform = excluded.platform,
      name = COALESCE(excluded.name, auth_devices.name),
      os_name = COALESCE(excluded.os_name, auth_devices.os_name),
      os_version = COALESCE(excluded.os_version, auth_devices.os_version),
      browser_name = COALESCE(excluded.browser_name, auth_devices.browser_name),
      browser_version = COALESCE(excluded.browser_version, auth_devices.browser_version),
      app_version = COALESCE(excluded.app_version, auth_devices.app_version),
      last_seen_at = excluded.last_seen_at,
      updated_at = excluded.updated_at`);

  const loginEvent = batchable(ctx, sql`
    INSERT INTO device_events (id, tenant_id, user_id, auth_device_id, session_id, type, ip, user_agent, detail, created_at)
    SELECT ${uuidv7(now)}, s.tenant_id, s.user_id, s.auth_device_id, s.id, 'login', s.ip, s.user_agent,
           json_object('new_device', json(CASE WHEN s.auth_device_id = ${newDeviceId} THEN 'true' ELSE 'false' END), 'via', ${input.via ?? "password"}), ${now}
    FROM sessions s WHERE s.id = ${sessionId}`);

  // Signing in is activity: recorded with the session, so the requests that follow need no write.
  const activity = batchable(ctx, sql`UPDATE users SET last_active_at = ${now} WHERE id = ${user.id} AND ${started}`);

  const statements: BatchItem[] = [sessionInsert, deviceUpsert, loginEvent, activity];
  if (admission?.monitorLimit != null && admission.enforceLimit == null) {
    const limitEventId = uuidv7(now);
    statements.push(
      batchable(ctx, sql`
        INSERT INTO device_events (id, tenant_id, user_id, auth_device_id, session_id, type, ip, user_agent, detail, created_at)
        SELECT ${limitEventId}, s.tenant_id, s.user_id, s.auth_device_id, s.id, 'device_limit_exceeded', s.ip, s.user_agent,
               json_object('limit', ${admission.monitorLimit}, 'active_devices', ${otherActiveDevices} + 1), ${now}
        FROM sessions s WHERE s.id = ${sessionId} AND ${otherActiveDevices} >= ${admission.monitorLimit}`),
    );
    if (user.tenantId !== null) statements.push(await deviceLimitExceededPush(inSchoolCtx(ctx), { userId: user.id, sessionId, limitEventId, limit: admission.monitorLimit }));
  }
  statements.push(...((await input.followUps?.({ sessionId, newDeviceId, started, onNewDevice })) ?? []), ...(input.statements ?? []));
  const landed = ctx.db.select({ authDeviceId: sessions.authDeviceId }).from(sessions).where(eq(sessions.id, sessionId));

  const results = await runBatch(ctx, [...statements, landed]);
  const authDeviceId = (results[results.length - 1] as { authDeviceId: string }[])[0]?.authDeviceId;
  if (!authDeviceId) return null;

  try {
    await family(ctx, sessionId).start({ secretHash: await sha256Hex(secret), refreshExpiresAt, now });
  } catch (err) {
    // A session without a refresh family would still count toward the device limit: end it.
    await revokeSession(ctx, sessionId, "refresh_family_unavailable");
    throw err;
  }
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

/**
 * The session with its user and school, for refresh and logout, and the context of the session's
 * own database (the school's, or the control database for the superadmin); null when the session
 * is not usable. The session id names its database (./account-db.ts); the school comes from the
 * control database.
 */
async function loadLiveSession(platform: ServiceContext, sessionId: string) {
  const db = sessionDb(platform.env, sessionId);
  if (!db) return null;
  const [row] = await db
    .select({
      sessionId: sessions.id,
      authDeviceId: sessions.authDeviceId,
      revokedAt: sessions.revokedAt,
      idleExpiresAt: sessions.idleExpiresAt,
      // The absolute expiry under the school's current policy: a lowered lifetime shortens sessions already issued.
      expiresAt: sql<number>`min(${sessions.expiresAt}, ${lifetimeEndSql(sessions.createdAt, sessions.tenantId)})`,
      userId: users.id,
      userTenantId: users.tenantId,
      role: users.role,
      isActive: users.isActive,
      idleWindowMs: idleWindowSql(sessions.tenantId),
    })
    .from(sessions)
    .innerJoin(users, and(eq(users.id, sessions.userId), isNull(users.deletedAt)))
    .where(eq(sessions.id, sessionId))
    .limit(1);
  if (!row) return null;
  if (row.userTenantId === null) return { ...row, subdomain: null, schoolGone: false, home: platform };
  const school = await loadSchool(platform, row.userTenantId);
  const home: ServiceContext = school ? forSchool(platform, school, systemActor("session")) : { ...platform, db };
  return { ...row, subdomain: school?.subdomain ?? null, schoolGone: school === null, home };
}

type LiveSession = NonNullable<Awaited<ReturnType<typeof loadLiveSession>>>;

function assertUsable(row: LiveSession | null, now: number, selectors: { authDeviceId?: string; subdomain?: string | null }): LiveSession {
  if (!row || row.revokedAt !== null || row.idleExpiresAt <= now || row.expiresAt <= now || !row.isActive) throw unauthorized();
  if (row.userTenantId !== null && row.schoolGone) throw unauthorized();
  if (selectors.authDeviceId !== undefined && selectors.authDeviceId !== row.authDeviceId) throw unauthorized();
  if (selectors.subdomain && selectors.subdomain !== (row.subdomain ?? "")) throw unauthorized();
  return row;
}

interface RefreshInput {
  sessionId: string;
  secret: string;
  authDeviceId?: string;
  subdomain?: string | null;
  /** Recorded in the security history when the call ends the session. */
  client?: ClientInfo;
}

/**
 * Rotates the refresh secret in the session's Durable Object. A replay of the just-rotated
 * secret inside the grace window is a tab race (409); after it, or of any older secret, it is
 * confirmed reuse and the whole session is revoked.
 */
export async function refreshSession(platform: ServiceContext, input: RefreshInput): Promise<IssuedSession> {
  const now = platform.clock.now();
  const session = assertUsable(await loadLiveSession(platform, input.sessionId), now, input);
  const ctx = session.home;
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
      throw new ApiError(devicesErrors.STALE_REFRESH_TOKEN);
    case "reuse":
      // The replaying client's address goes into the history: it is the likely thief.
      await revokeSession(ctx, input.sessionId, "refresh_token_reuse", input.client);
      throw unauthorized();
    case "invalid":
      throw unauthorized();
    case "rotated":
      break;
  }
  await ctx.db.batch([
    ctx.db
      .update(sessions)
      .set({ lastActivityAt: now, idleExpiresAt: now + session.idleWindowMs, expiresAt: sql`min(${sessions.expiresAt}, ${session.expiresAt})` })
      .where(and(eq(sessions.id, input.sessionId), isNull(sessions.revokedAt))),
    ctx.db.update(authDevices).set({ lastSeenAt: now }).where(eq(authDevices.id, session.authDeviceId)),
  ]);
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
export async function endSession(platform: ServiceContext, input: RefreshInput): Promise<void> {
  const db = sessionDb(platform.env, input.sessionId);
  if (!db) throw unauthorized();
  const [found] = await db
    .select({ authDeviceId: sessions.authDeviceId, tenantId: sessions.tenantId })
    .from(sessions)
    .where(eq(sessions.id, input.sessionId))
    .limit(1);
  if (!found) throw unauthorized();
  const school = found.tenantId === null ? null : await loadSchool(platform, found.tenantId);
  const row = { ...found, subdomain: school?.subdomain ?? null };
  const ctx: ServiceContext = school ? forSchool(platform, school, systemActor("session")) : { ...platform, db };
  if (input.authDeviceId !== undefined && input.authDeviceId !== row.authDeviceId) throw unauthorized();
  if (input.subdomain && input.subdomain !== (row.subdomain ?? "")) throw unauthorized();
  const generation = await family(ctx, input.sessionId).identify(await sha256Hex(input.secret));
  if (generation !== "current" && generation !== "previous") throw unauthorized();
  await revokeSession(ctx, input.sessionId, "logout", input.client);
}

/**
 * Ends one session with its history entry: a `logout`, or a `session_revoked` with the reason.
 * The event is written before the UPDATE in the same batch, conditional on the session still
 * being open, so a repeated call records nothing twice.
 */
async function revokeSession(
  ctx: ServiceContext,
  sessionId: string,
  reason: "logout" | "refresh_token_reuse" | "refresh_family_unavailable",
  client?: Pick<ClientInfo, "ip" | "userAgent">,
): Promise<void> {
  const now = ctx.clock.now();
  const type = reason === "logout" ? "logout" : "session_revoked";
  const detail = reason === "logout" ? sql`NULL` : sql`json_object('reason', ${reason}, 'sessions', 1)`;
  await ctx.db.batch([
    batchable(ctx, sql`
      INSERT INTO device_events (id, tenant_id, user_id, auth_device_id, session_id, type, ip, user_agent, detail, created_at)
      SELECT ${uuidv7(now)}, s.tenant_id, s.user_id, s.auth_device_id, s.id, ${type}, ${client?.ip ?? null},
             ${client?.userAgent ?? null}, ${detail}, ${now}
      FROM sessions s WHERE s.id = ${sessionId} AND s.revoked_at IS NULL`),
    ctx.db
      .update(sessions)
      .set({ revokedAt: now, revokeReason: reason })
      .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt))),
  ]);
}
