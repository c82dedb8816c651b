import { and, eq, isNull } from "drizzle-orm";
import { authDevices, deviceReplacementTokens, users } from "../../db/schema";
import { markedSecretDb } from "./account-db";
import { forSchool, systemActor } from "../../core/school";
import { loadSchool } from "../schools/lookup";
import type { ClientInfo, IssuedSession } from "./session-service";
import type { Role, ServiceContext } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { sha256Hex } from "../../core/lib/crypto";
import { devicesErrors } from "./errors";
import { signInDevice, type PendingSignIn } from "./sign-in";

interface ReplacementResult extends IssuedSession {
  user: { id: string; email: string; role: Role; first_name: string; last_name: string };
  subdomain: string;
  revokedDeviceId: string;
}

/**
 * POST /auth/device-limit/replace: finishes a login the device limit refused, giving up one of the
 * account's devices. The token is looked up by its hash; single use is enforced by the sign-in
 * batch itself (the session insert requires the token unused, the same batch marks it used), so
 * of concurrent uses exactly one signs in and the others get 409.
 */
export async function replaceDevice(
  platform: ServiceContext,
  input: { token: string; revokeDeviceId: string; subdomain: string | undefined; client: ClientInfo },
): Promise<ReplacementResult> {
  const now = platform.clock.now();
  // The token names the database of its account (./account-db.ts).
  const db = markedSecretDb(platform.env, input.token);
  if (!db) throw new ApiError(devicesErrors.INVALID_REPLACEMENT_TOKEN);
  const [found] = await db
    .select({
      tokenId: deviceReplacementTokens.id,
      usedAt: deviceReplacementTokens.usedAt,
      expiresAt: deviceReplacementTokens.expiresAt,
      pending: deviceReplacementTokens.pendingDevice,
      userId: users.id,
      tenantId: users.tenantId,
      email: users.email,
      role: users.role,
      firstName: users.firstName,
      lastName: users.lastName,
      isActive: users.isActive,
      revokeDeviceId: authDevices.id,
    })
    .from(deviceReplacementTokens)
    .innerJoin(users, and(eq(users.id, deviceReplacementTokens.userId), eq(users.tenantId, deviceReplacementTokens.tenantId), isNull(users.deletedAt)))
    .leftJoin(authDevices, and(eq(authDevices.id, input.revokeDeviceId), eq(authDevices.userId, deviceReplacementTokens.userId)))
    .where(eq(deviceReplacementTokens.tokenHash, await sha256Hex(input.token)))
    .limit(1);
  const school = found?.tenantId ? await loadSchool(platform, found.tenantId) : null;
  const row = found && school ? { ...found, subdomain: school.subdomain } : undefined;
  if (!row || !school || row.usedAt !== null || row.expiresAt <= now || !row.isActive) throw new ApiError(devicesErrors.INVALID_REPLACEMENT_TOKEN);
  if (input.subdomain !== undefined && input.subdomain !== row.subdomain) throw new ApiError(devicesErrors.INVALID_REPLACEMENT_TOKEN);
  if (row.revokeDeviceId === null) {
    throw new ApiError(coreErrors.INVALID_REQUEST_BODY, {
      message: "revoke_device_id: not one of this account's devices",
      details: [{ path: "revoke_device_id", message: "not one of this account's devices" }],
    });
  }

  const pending = row.pending as unknown as PendingSignIn;
  const session = await signInDevice(forSchool(platform, school, systemActor("sign_in")), {
    user: { id: row.userId, tenantId: row.tenantId, role: row.role, shard: school.shard },
    device: { ...pending.device, platform: input.client.isBrowser ? "web" : pending.device.platform },
    client: input.client,
    push: pending.push,
    replacement: {
      tokenId: row.tokenId,
      revokeDeviceId: row.revokeDeviceId,
      audit: { actor: { userId: row.userId, role: row.role, name: `${row.firstName} ${row.lastName}`.trim() } },
    },
  });
  return {
    ...session,
    user: { id: row.userId, email: row.email, role: row.role, first_name: row.firstName, last_name: row.lastName },
    subdomain: row.subdomain,
    revokedDeviceId: row.revokeDeviceId,
  };
}
