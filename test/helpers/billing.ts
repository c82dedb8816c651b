import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import worker from "../../src";
import { createSchool, createUser, db, login } from "./factories";
import { api } from "./http";

/** A fresh platform superadmin, signed in (no school). */
export async function superadmin(): Promise<{ id: string; token: string }> {
  const user = await createUser(null, { role: "superadmin" });
  return { id: user.id, token: (await login(user, { subdomain: "" })).token };
}

export async function superadminToken(): Promise<string> {
  return (await superadmin()).token;
}

/** POST /admin/tariffs, asserting success; returns the tariff. */
export async function createTariff(token: string, overrides: Record<string, unknown> = {}) {
  const res = await api("/admin/tariffs", {
    token,
    body: { title: `Plan ${Math.random().toString(36).slice(2, 8)}`, price_cents: 100_000_00, duration_days: 30, ...overrides },
  });
  if (res.status !== 201) throw new Error(`tariff create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; title: string; price_cents: number; duration_days: number };
}

export async function tenantRow(id: string) {
  const [row] = await db().select().from(schema.tenants).where(eq(schema.tenants.id, id));
  return row!;
}

export async function outboxFor(tenantId: string) {
  return db().select().from(schema.notificationOutbox).where(eq(schema.notificationOutbox.tenantId, tenantId));
}

/** One cron run through the Worker's own `scheduled` handler, awaited to completion. */
export async function runCron(scheduledTime = Date.now()) {
  const controller = createScheduledController({ scheduledTime, cron: "*/5 * * * *" });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env, ctx);
  await waitOnExecutionContext(ctx);
}

/** The full school record the API answers for a factory school, with `changes` on top. */
export function schoolRecord(school: Awaited<ReturnType<typeof createSchool>>, changes: Record<string, unknown> = {}) {
  return {
    id: school.id,
    title: school.title,
    slug: school.slug,
    subdomain: school.subdomain,
    logo: null,
    color_scheme: "#1F6FEB",
    hide_tests: false,
    hide_assignments: false,
    hide_trial_exams: false,
    status: school.status,
    timezone: school.timezone,
    storage_cap_bytes: 10 * 1024 * 1024 * 1024,
    plan_state: school.planState,
    expires_at: school.expiresAt === null ? null : new Date(school.expiresAt).toISOString(),
    created_at: new Date(school.createdAt).toISOString(),
    updated_at: new Date(school.updatedAt).toISOString(),
    ...changes,
  };
}
