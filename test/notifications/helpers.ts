import { createExecutionContext, createMessageBatch, env, getQueueResult, type QueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import type { Env, PushMessage } from "../../src/core/env";
import { handlePushBatch, PUSH_QUEUE } from "../../queues/push-consumer";
import worker from "../../src";
import { db } from "../helpers/factories";
import { api, type ApiCall } from "../helpers/http";
import { newInstallation } from "../helpers/devices";
import { uuidv7 } from "../../src/core/lib/ids";
import { runBatch } from "../../src/core/db/batch";
import { forSchoolId } from "../../src/platform/schools/lookup";
import { systemActor } from "../../src/core/school";
import { jobContext } from "../../src/contributors";
import { enqueue } from "../../src/platform/notifications/enqueue";
import { pushTokenBinding, pushTokenKeys, sealPushToken } from "../../src/platform/notifications/push-token-crypto";

/** Anyone who can call /t/* routes. */
export interface Caller {
  id: string;
  token: string;
  subdomain: string;
  tenantId: string;
}

export function call(who: { token: string; subdomain: string }, path: string, init: Omit<ApiCall, "token" | "tenant"> = {}) {
  return api(path, { ...init, token: who.token, tenant: who.subdomain });
}

let tokenCounter = 0;
export const newPushToken = () => `fcm-${Date.now().toString(36)}-${(tokenCounter++).toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

/** POST /t/notifications/me/devices, asserting success; returns the device. */
export async function registerDevice(who: Caller, options: { installationId?: string; token?: string; platform?: "web" | "ios" | "android" } = {}) {
  const res = await call(who, "/t/notifications/me/devices", {
    body: { installation_id: options.installationId ?? newInstallation(), token: options.token ?? newPushToken(), platform: options.platform ?? "android" },
  });
  if (res.status !== 200) throw new Error(`device registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.device as { id: string; installation_id: string; platform: string; enabled: boolean };
}

let messageCounter = 0;
const message = (body: PushMessage, attempts = 1) => ({ id: `push-msg-${messageCounter++}`, timestamp: Date.now(), attempts, body });

export const dispatchMessage = (tenantId: string, attempts = 1) => message({ kind: "push", tenant_id: tenantId }, attempts);
export const campaignMessage = (tenantId: string, campaignId: string, attempts = 1) => message({ kind: "campaign", tenant_id: tenantId, campaign_id: campaignId }, attempts);

/** The Worker's own queue handler on a push batch; retry delays are kept in the result. */
export async function runPushQueue(messages: ReturnType<typeof message>[], options: { env?: Env; fetch?: (input: string, init: RequestInit) => Promise<Response> } = {}) {
  const batch = createMessageBatch<PushMessage>(PUSH_QUEUE, messages);
  const delays = new Map<string, number | undefined>();
  for (const item of batch.messages) {
    const retry = item.retry.bind(item);
    Object.defineProperty(item, "retry", {
      value: (retryOptions?: QueueRetryOptions) => {
        if (!delays.has(item.id)) delays.set(item.id, retryOptions?.delaySeconds);
        retry(retryOptions);
      },
    });
  }
  const ctx = createExecutionContext();
  const testEnv = options.env ?? (env as Env);
  if (options.fetch) await handlePushBatch(batch, testEnv, { fetch: options.fetch });
  else await worker.queue(batch as never, testEnv);
  const result: QueueResult = await getQueueResult(batch, ctx);
  return { ...result, delays };
}

/** Delivers the school's due pushes now (the queue would do it a moment later). */
export async function deliverNow(tenantId: string, options: Parameters<typeof runPushQueue>[1] = {}) {
  return runPushQueue([dispatchMessage(tenantId)], options);
}

export interface DevPush {
  id: string;
  notification_id: string;
  user_id: string;
  installation_id: string;
  event_code: string;
  title: string;
  body: string;
  deep_link: string | null;
  data: Record<string, unknown>;
  delivered_at: string;
}

/** GET /api/v1/dev/pushes?user_id=: what the log provider delivered to the user's devices. */
export async function pushesFor(userId: string): Promise<DevPush[]> {
  const res = await api(`/dev/pushes?user_id=${userId}`);
  if (res.status !== 200) throw new Error(`dev pushbox: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.pushes;
}

/** The school's outbox rows, oldest first. */
export async function outboxRows(tenantId: string) {
  const rows = await db().select().from(schema.notificationOutbox).where(eq(schema.notificationOutbox.tenantId, tenantId));
  return rows.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
}

export async function deliveriesOf(outboxId: string) {
  return db().select().from(schema.notificationDeliveries).where(eq(schema.notificationDeliveries.outboxId, outboxId));
}

export async function pushDeviceRow(id: string) {
  const [row] = await db().select().from(schema.pushDevices).where(eq(schema.pushDevices.id, id));
  return row!;
}

/** The env with some vars replaced (a fresh object, so its configuration is parsed anew). */
export function envWith(vars: Record<string, string | undefined>): Env {
  return { ...env, ...vars } as Env;
}

/**
 * A push device for a user, written straight to D1 (for users the test never signs in): its token
 * is sealed like a registered one, so delivery can open it.
 */
export async function addPushDevice(tenantId: string, userId: string, options: { installationId?: string; token?: string } = {}) {
  const keys = (await pushTokenKeys(env.PUSH_TOKEN_KEY))!;
  const installationId = options.installationId ?? newInstallation();
  const sealed = await sealPushToken(keys, options.token ?? newPushToken(), pushTokenBinding(tenantId, installationId));
  const now = Date.now();
  const row = {
    id: uuidv7(),
    tenantId,
    userId,
    installationId,
    provider: "fcm",
    platform: "android" as const,
    tokenCiphertext: sealed.ciphertext,
    tokenHash: sealed.hash,
    enabled: true,
    lastSeenAt: now,
    createdAt: now,
    updatedAt: now,
  };
  await db().insert(schema.pushDevices).values(row);
  return row;
}

/**
 * One `security.password_reset` notification for the user, written the way a producer writes it
 * but without a queue message, so only the test's own consumer run delivers it.
 */
export async function writePush(tenantId: string, userId: string) {
  const ctx = (await forSchoolId(jobContext(env as Env), tenantId, systemActor("test")))!;
  await runBatch(ctx, [
    await enqueue(ctx, "security.password_reset", { token: "user", userId }, { changed_at: new Date().toISOString() }, { id: userId }, `security.password_reset:${userId}:${crypto.randomUUID()}`),
  ]);
}
