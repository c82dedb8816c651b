import { createMessageBatch, env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import * as schema from "../../src/db/schema";
import type { QueueMessage } from "../../src/core/env";
import { jobContext } from "../../src/contributors";
import { uuidv7 } from "../../src/core/lib/ids";
import { DATA_EXPORT_QUEUE, handleDataExportBatch } from "../../src/platform/data-export/consumer";
import { db } from "../helpers/factories";
import { api } from "../helpers/http";
import { as, type Member } from "../helpers/users";

export const requestOwn = (member: Member) => as(member, "/t/me/data-export", { method: "POST" });
export const requestFor = (admin: Member, userId: string) => as(admin, `/t/users/${userId}/data-export`, { method: "POST" });
export const readExport = (member: Member, id: string) => as(member, `/t/data-exports/${id}`);

/**
 * Runs the queue's consumer on the export's message, as the queue would. In tests the export's
 * messages go to a queue no consumer reads (vitest.config.ts), so an export stays pending until a
 * test builds it.
 */
export async function build(tenantId: string, exportId: string) {
  const batch = createMessageBatch<QueueMessage>(DATA_EXPORT_QUEUE, [
    { id: uuidv7(), timestamp: new Date(), attempts: 1, body: { kind: "data_export", tenant_id: tenantId, export_id: exportId } },
  ] as never);
  await handleDataExportBatch(batch, jobContext(env));
}

export async function exportRow(id: string) {
  const [row] = await db().select().from(schema.dataExports).where(eq(schema.dataExports.id, id));
  return row;
}

/** The path of an absolute link, as `api()` takes it (without /api/v1). */
export function linkPath(url: string) {
  const { pathname, search } = new URL(url);
  return `${pathname.replace(/^\/api\/v1/, "")}${search}`;
}

/** Downloads the file behind a ready export's link and parses it. */
export async function download(url: string) {
  const res = await api(linkPath(url));
  expect(res.status).toBe(200);
  return res;
}

/** A pending export written straight to the database (no queue message). */
export async function pendingExport(tenantId: string, userId: string, requestedBy = userId, createdAt = Date.now()) {
  const id = uuidv7();
  await db().insert(schema.dataExports).values({ id, tenantId, userId, requestedBy, status: "pending", createdAt });
  return id;
}

/** An enabled push device, so pushes to the member are written. */
export async function pushDevice(tenantId: string, userId: string) {
  const now = Date.now();
  await db()
    .insert(schema.pushDevices)
    .values({ id: uuidv7(), tenantId, userId, installationId: uuidv7(), provider: "fcm", platform: "android", tokenHash: uuidv7(), tokenCiphertext: "x", lastSeenAt: now, createdAt: now, updatedAt: now });
}

export async function pushesTo(userId: string) {
  return db()
    .select({ eventCode: schema.notificationOutbox.eventCode, data: schema.notificationOutbox.data })
    .from(schema.notificationOutbox)
    .where(eq(schema.notificationOutbox.userId, userId));
}
