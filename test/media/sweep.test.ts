import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { jobContext } from "../../src/contributors";
import { HOUR_MS, setClockForTests } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import * as schema from "../../src/db/schema";
import { sweepMedia } from "../../src/platform/media/sweep-job";
import { runCron } from "../helpers/billing";
import { db } from "../helpers/factories";
import { as } from "../helpers/users";
import { assetRow, confirmedAsset, FIXTURES, mediaSchool, objectOf, uploaded } from "./helpers";

describe("media sweep (cron)", () => {
  it("fails assets still pending 24 hours after presign and deletes their objects; younger and confirmed ones stay", async () => {
    const { student } = await mediaSchool();
    const start = Date.now();
    setClockForTests({ now: () => start - 25 * HOUR_MS });
    const stale = await uploaded(student, "image", FIXTURES.png);
    setClockForTests({ now: () => start - 23 * HOUR_MS });
    const young = await uploaded(student, "image", FIXTURES.png);
    setClockForTests({ now: () => start - 30 * HOUR_MS });
    const confirmed = await confirmedAsset(student, "image", FIXTURES.png);
    setClockForTests(null);

    await runCron();

    expect(await assetRow(stale.media_asset_id)).toMatchObject({ status: "failed", objectPurgedAt: expect.any(Number) });
    expect(await objectOf(stale.object_key)).toBeNull();
    expect((await assetRow(young.media_asset_id))?.status).toBe("pending");
    expect(await objectOf(young.object_key)).not.toBeNull();
    expect((await assetRow(confirmed.id))?.status).toBe("confirmed");
    expect(await objectOf((await assetRow(confirmed.id))!.objectKey)).not.toBeNull();
    // The failed asset reads as not confirmed, with its metadata.
    const read = await as(student, `/t/media/${stale.media_asset_id}`);
    expect(read.status).toBe(409);
    expect(read.body.data.status).toBe("failed");
  });

  it("works through more stale assets than one chunk, and a second run finds nothing to do", async () => {
    const { school } = await mediaSchool();
    const old = Date.now() - 48 * HOUR_MS;
    const ids = Array.from({ length: 230 }, () => uuidv7(old));
    const rows = ids.map((id) => ({
      id,
      tenantId: school.id,
      kind: "image" as const,
      filename: "x.png",
      declaredSize: 3,
      declaredMime: "image/png",
      sizeBytes: 3,
      mime: "image/png",
      status: "pending" as const,
      objectKey: `tenant/${school.id}/${id}`,
      createdAt: old,
      updatedAt: old,
    }));
    // D1 binds at most 100 parameters per statement.
    for (let i = 0; i < rows.length; i += 5) await db().insert(schema.mediaAssets).values(rows.slice(i, i + 5));
    await Promise.all(ids.slice(0, 5).map((id) => env.MEDIA.put(`tenant/${school.id}/${id}`, "abc")));
    const ctx = jobContext(env);
    const first = await sweepMedia(ctx);
    expect(first.failed).toBeGreaterThanOrEqual(230);
    const after = await db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.tenantId, school.id));
    expect(after).toHaveLength(230);
    expect(after.every((row) => row.status === "failed" && row.objectPurgedAt !== null)).toBe(true);
    for (const id of ids.slice(0, 5)) expect(await objectOf(`tenant/${school.id}/${id}`)).toBeNull();
    expect(await sweepMedia(ctx)).toEqual({ failed: 0, purged: 0 });
  });

  it("removes the objects and then the rows of deleted assets", async () => {
    const { student } = await mediaSchool();
    const asset = await confirmedAsset(student, "image", FIXTURES.png);
    const key = (await assetRow(asset.id))!.objectKey;
    await db().update(schema.mediaAssets).set({ deletedAt: Date.now() }).where(eq(schema.mediaAssets.id, asset.id));
    await runCron();
    expect(await objectOf(key)).toBeNull();
    expect(await assetRow(asset.id)).toBeUndefined();
  });
});
