import { createExecutionContext, createMessageBatch, env, getQueueResult, type QueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import type { Env, EmailMessage } from "../../src/core/env";
import { renderEmail } from "../../src/platform/email/templates";
import { uuidv7 } from "../../src/core/lib/ids";
import worker from "../../src";
import { handleOutboxBatch } from "../../queues/outbox-consumer";
import { api } from "./http";
import { db } from "./factories";

let counter = 0;
export const uniqueSuffix = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

/** The test env with some vars replaced (a fresh object, so the config is parsed anew). */
export function envWith(vars: Partial<Record<"MAIL_PROVIDER" | "RESEND_API_KEY" | "RESEND_API_URL" | "DEV_MAILBOX" | "MAIL_FROM", string>>): Env {
  return { ...env, ...vars } as Env;
}

export const RESEND_URL = "https://resend.test/emails";
export const RESEND_KEY = "re_test_key_123";
export const resendEnv = (vars: Parameters<typeof envWith>[0] = {}) =>
  envWith({ MAIL_PROVIDER: "resend", RESEND_API_KEY: RESEND_KEY, RESEND_API_URL: RESEND_URL, MAIL_FROM: "School LMS <no-reply@lms.test>", ...vars });

export type OutboxInsert = typeof schema.emailOutbox.$inferInsert;

/** A pending verification email written straight to the outbox (no queue message). */
export async function insertOutboxRow(overrides: Partial<OutboxInsert> = {}) {
  const to = overrides.toEmail ?? `user.${uniqueSuffix()}@example.test`;
  const rendered = renderEmail("verification", "ru", {
    schoolTitle: "Школа тестов",
    firstName: "Анна",
    verifyUrl: "http://lms.localhost/verify-email?token=secret-token",
    expiresAt: "2030-01-01T00:00:00.000Z",
  });
  const row: OutboxInsert = {
    id: uuidv7(),
    tenantId: null,
    toEmail: to,
    kind: "verification",
    locale: "ru",
    subject: rendered.subject,
    textBody: rendered.text,
    htmlBody: rendered.html,
    meta: { token: "secret-token" },
    status: "pending",
    createdAt: Date.now(),
    ...overrides,
  };
  await db().insert(schema.emailOutbox).values(row);
  return row as OutboxInsert & { id: string };
}

export async function outboxRow(id: string) {
  const [row] = await db().select().from(schema.emailOutbox).where(eq(schema.emailOutbox.id, id));
  if (!row) throw new Error(`no outbox row ${id}`);
  return row;
}

let messageCounter = 0;

/** Queue messages pointing at outbox rows, as the producer sends them. */
export function outboxMessages(ids: string[], attempts = 1) {
  return ids.map((id) => ({ id: `msg-${messageCounter++}`, timestamp: Date.now(), attempts, body: { kind: "email" as const, outbox_id: id } }));
}

/** Runs the Worker's own `queue` handler (the default export) on a batch. */
export async function runWorkerQueue(queue: string, messages: ReturnType<typeof outboxMessages>, testEnv: Env): Promise<QueueResult> {
  return runBatch(queue, messages, (batch) => worker.queue(batch, testEnv));
}

/** Runs the consumer with a mocked upstream for the HTTP provider. */
export async function runConsumer(queue: string, messages: ReturnType<typeof outboxMessages>, testEnv: Env, fetch: FakeUpstream["fetch"]): Promise<QueueResult> {
  return runBatch(queue, messages, (batch) => handleOutboxBatch(batch, testEnv, { fetch }));
}

/**
 * `getQueueResult` reports which messages were retried but drops the retry options, so the
 * delay each `retry({ delaySeconds })` asked for is recorded here and put back into the result.
 */
async function runBatch(queue: string, messages: ReturnType<typeof outboxMessages>, handle: (batch: MessageBatch<EmailMessage>) => Promise<void>) {
  const batch = createMessageBatch<EmailMessage>(queue, messages);
  const delays = new Map<string, number | undefined>();
  for (const message of batch.messages) {
    const retry = message.retry.bind(message);
    Object.defineProperty(message, "retry", {
      value: (options?: QueueRetryOptions) => {
        if (!delays.has(message.id)) delays.set(message.id, options?.delaySeconds);
        retry(options);
      },
    });
  }
  const ctx = createExecutionContext();
  await handle(batch);
  const result = await getQueueResult(batch, ctx);
  return {
    ...result,
    retryMessages: result.retryMessages.map(({ msgId }) => {
      const delaySeconds = delays.get(msgId);
      return delaySeconds === undefined ? { msgId } : { msgId, delaySeconds };
    }),
  };
}

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Headers;
  body: any;
}

export interface FakeUpstream {
  requests: RecordedRequest[];
  fetch: (input: string, init: RequestInit) => Promise<Response>;
}

/** A stand-in for Resend: records each request and answers with the next scripted response (the last one repeats). */
export function fakeUpstream(...responses: (() => Response)[]): FakeUpstream {
  const requests: RecordedRequest[] = [];
  return {
    requests,
    fetch: async (input, init) => {
      requests.push({
        url: input,
        method: init.method ?? "GET",
        headers: new Headers(init.headers),
        body: typeof init.body === "string" ? JSON.parse(init.body) : init.body,
      });
      const next = responses[Math.min(requests.length - 1, responses.length - 1)];
      if (!next) throw new Error("fake upstream has no response scripted");
      return next();
    },
  };
}

export const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** Registers a school over HTTP, as a new customer would. */
export async function registerSchool(options: { acceptLanguage?: string } = {}) {
  const slug = `reg${uniqueSuffix()}`.replace(/[^a-z0-9]/g, "");
  const email = `owner.${slug}@example.test`;
  const title = `Школа ${slug}`;
  const response = await api("/auth/register", {
    body: { tenant_title: title, tenant_slug: slug, email, password: "long-enough-password", first_name: "Мария", last_name: "Иванова" },
    headers: options.acceptLanguage ? { "accept-language": options.acceptLanguage } : {},
  });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { slug, email, title, password: "long-enough-password" };
}

export async function devMailbox(to: string) {
  return api(`/dev/mailbox?to=${encodeURIComponent(to)}`);
}
