import { createMessageBatch, env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import type { Env, WebhookMessage } from "../../src/core/env";
import { handleWebhookBatch, WEBHOOKS_QUEUE } from "../../queues/webhook-consumer";
import { db } from "../helpers/databases";
import { as, type Member } from "../helpers/users";

export const createHook = (admin: Member, body: unknown) => as(admin, "/t/webhooks", { method: "POST", body });

export const hookBody = (overrides: Record<string, unknown> = {}) => ({ url: "https://crm.example.com/hooks/lms", events: ["enrollment.created"], description: "CRM", ...overrides });

/** A webhook created through the API; returns its answer (with the secret). */
export async function hookOf(admin: Member, overrides: Record<string, unknown> = {}) {
  const res = await createHook(admin, hookBody(overrides));
  if (res.status !== 201) throw new Error(`webhook not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; url: string; secret: string; events: string[] };
}

export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A receiver inside the test: records each request and answers from `answers` in turn (the last one repeats). */
export function receiver(answers: (number | "timeout")[] = [200]) {
  const received: Received[] = [];
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    received.push({ url: input, headers, body: String(init.body) });
    const answer = answers[Math.min(received.length - 1, answers.length - 1)]!;
    if (answer === "timeout") throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
    if (answer === 204) return new Response(null, { status: 204 });
    return new Response(answer >= 300 ? `error ${answer}: ${"x".repeat(600)}` : "ok", { status: answer });
  };
  return { received, fetch };
}

let counter = 0;

/** The Worker's webhook consumer on one "deliveries due" message for the school. */
export async function deliverHooks(tenantId: string, fetch: (input: string, init: RequestInit) => Promise<Response>) {
  const message = { id: `webhook-msg-${counter++}`, timestamp: new Date(), attempts: 1, body: { kind: "webhooks" as const, tenant_id: tenantId } };
  const batch = createMessageBatch<WebhookMessage>(WEBHOOKS_QUEUE, [message]);
  await handleWebhookBatch(batch, env as Env, { fetch });
}

export async function deliveryRows(webhookId: string) {
  return db().select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.webhookId, webhookId));
}

export async function webhookRow(id: string) {
  const [row] = await db().select().from(schema.webhooks).where(eq(schema.webhooks.id, id));
  return row;
}
