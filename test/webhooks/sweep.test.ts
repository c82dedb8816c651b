import { afterEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import type { Env } from "../../src/core/env";
import { jobContext } from "../../src/contributors";
import { setClockForTests } from "../../src/core/lib/clock";
import { sweepWebhooks } from "../../src/platform/webhooks/sweep-job";
import { db } from "../helpers/databases";
import { as, schoolWithAdmin } from "../helpers/users";
import { deliveryRows, hookOf } from "./helpers";

/** The cron's part (05 section 5): due deliveries are re-sent to the queue; 30 days of log are kept. */

afterEach(() => setClockForTests(null));

async function sweepAt(at: number) {
  setClockForTests({ now: () => at });
  try {
    return await sweepWebhooks(jobContext(env as Env));
  } finally {
    setClockForTests(null);
  }
}

describe("webhook sweep", () => {
  it("finds the schools with a try due (not those of a disabled webhook) and removes deliveries and events older than 30 days", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin);
    const quiet = await schoolWithAdmin();
    const paused = await hookOf(quiet.admin);
    await as(admin, `/t/webhooks/${hook.id}/test`, { method: "POST" });
    await as(quiet.admin, `/t/webhooks/${paused.id}/test`, { method: "POST" });
    await as(quiet.admin, `/t/webhooks/${paused.id}`, { method: "PATCH", body: { status: "disabled" } });
    const [delivery] = await deliveryRows(hook.id);
    const now = Date.now() + 1000;

    // Both have a pending delivery; only the active webhook's school is due.
    const due = (await sweepAt(now)).schools;
    expect(due).toContain(school.id);
    expect(due).not.toContain(quiet.school.id);
    // Not due before its time.
    expect((await sweepAt(delivery!.createdAt - 1)).schools).not.toContain(school.id);

    // 30 days later to the millisecond the rows stay; a millisecond after, they go.
    await sweepAt(delivery!.createdAt + 30 * 86_400_000);
    expect(await deliveryRows(hook.id)).toHaveLength(1);
    await sweepAt(delivery!.createdAt + 30 * 86_400_000 + 1);
    expect(await deliveryRows(hook.id)).toEqual([]);
    expect(await db().select().from(schema.webhookEvents).where(eq(schema.webhookEvents.id, delivery!.eventId))).toEqual([]);
    // The other school's delivery (a disabled webhook's, still pending) goes too once it is 30 days old.
    await sweepAt(delivery!.createdAt + 31 * 86_400_000);
    expect(await deliveryRows(paused.id)).toEqual([]);
  });
});
