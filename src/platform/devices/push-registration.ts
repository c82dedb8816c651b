import { log } from "../../core/lib/log";
import { sql } from "drizzle-orm";
import type { StartedSessionRefs } from "./session-service";
import type { BatchItem } from "../../core/db/batch";
import type { ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { batchable } from "../../core/db/batch";
import { devicesErrors } from "./errors";
import { PUSH_PROVIDER_ID } from "../notifications/delivery";
import { pushTokenBinding, pushTokenKeys, sealPushToken, type SealedPushToken } from "../notifications/push-token-crypto";
import { inSchool } from "../../core/db/conditions";

/**
 * A `device_token` sent with a login, sealed before anything is written: without a usable key
 * the login fails with 503 and no session exists (spec: a successful login guarantees the token
 * is stored).
 */
export async function sealLoginDeviceToken(
  ctx: ServiceContext,
  token: string,
  binding: { tenantId: string; installationId: string | null },
): Promise<SealedPushToken> {
  const keys = await pushTokenKeys(ctx.env.PUSH_TOKEN_KEY);
  if (!keys) {
    log.error("PUSH_TOKEN_KEY missing or not 32 bytes; login device_token refused", { request_id: ctx.requestId });
    throw new ApiError(devicesErrors.DEVICE_REGISTRATION_FAILED);
  }
  return sealPushToken(keys, token, pushTokenBinding(binding.tenantId, binding.installationId));
}

/**
 * Push registry writes of a login, conditional on its session: the token moves away from any
 * other installation that held it, then the (school, user, provider, installation) binding is
 * upserted and re-enabled. A login without installation_id registers under its new device's id.
 */
export function pushRegistrationStatements(
  ctx: ServiceContext,
  input: {
    tenantId: string;
    userId: string;
    installationId: string | null;
    platform: "web" | "ios" | "android";
    appVersion: string | null;
    sealed: SealedPushToken;
    refs: StartedSessionRefs;
  },
): BatchItem[] {
  const now = ctx.clock.now();
  const installationId = pushInstallationId(input.installationId, input.refs.newDeviceId);
  return [
    batchable(ctx, sql`
      UPDATE push_devices SET token_ciphertext = NULL, token_hash = NULL, enabled = 0, updated_at = ${now}
      WHERE token_hash = ${input.sealed.hash} AND deleted_at IS NULL AND ${input.refs.started}
        -- Any other binding of this token (another installation, or another user signed in on this one) loses it.
        AND NOT (${inSchool(input.tenantId)} AND user_id = ${input.userId} AND installation_id = ${installationId})`),
    batchable(ctx, sql`
      INSERT INTO push_devices (id, tenant_id, user_id, installation_id, provider, platform, token_ciphertext, token_hash, enabled, app_version, last_seen_at, created_at, updated_at)
      SELECT ${uuidv7(now)}, ${input.tenantId}, ${input.userId}, ${installationId}, ${PUSH_PROVIDER_ID}, ${input.platform},
             ${input.sealed.ciphertext}, ${input.sealed.hash}, 1, ${input.appVersion}, ${now}, ${now}, ${now}
      WHERE ${input.refs.started}
      ON CONFLICT (tenant_id, user_id, provider, installation_id) WHERE deleted_at IS NULL DO UPDATE SET
        platform = excluded.platform,
        token_ciphertext = excluded.token_ciphertext,
        token_hash = excluded.token_hash,
        enabled = 1,
        app_version = COALESCE(excluded.app_version, push_devices.app_version),
        last_seen_at = excluded.last_seen_at,
        updated_at = excluded.updated_at`),
  ];
}

export function pushInstallationId(installationId: string | null, newDeviceId: string): string {
  return installationId ?? `auth-device:${newDeviceId}`;
}
