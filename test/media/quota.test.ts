import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { confirm, confirmedAsset, FIXTURES, mediaSchool, presign, setQuota, uploaded } from "./helpers";
import { schoolD1 } from "../helpers/databases";

const png = FIXTURES.png;

async function usedBytes(tenantId: string) {
  const rows = await db().select().from(schema.mediaAssets).where(eq(schema.mediaAssets.tenantId, tenantId));
  return rows.filter((row) => row.status === "confirmed" && row.deletedAt === null).reduce((sum, row) => sum + row.sizeBytes, 0);
}

describe("school storage quota", () => {
  it("two confirms racing for the last free bytes: exactly one succeeds, the other answers storage_quota_exceeded", async () => {
    const { school, admin, student } = await mediaSchool();
    await setQuota(school.id, png.length * 3);
    await confirmedAsset(admin, "image", png);
    await confirmedAsset(admin, "image", png);
    const first = await uploaded(admin, "image", png);
    const second = await uploaded(student, "image", png);
    // Both requests have read the asset and inspected R2 before either writes: the worst interleaving.
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /update "media_assets"/i, parties: 2 });
    const results = await Promise.all(
      [
        [admin, first],
        [student, second],
      ].map(([member, ticket]) =>
        requestWithD1(barrier.db, `/t/media/${(ticket as typeof first).media_asset_id}/confirm`, {
          token: (member as typeof admin).token,
          tenant: school.subdomain,
        }),
      ),
    );
    expect(barrier.stats.releases).toEqual([2]);
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 400]);
    const refused = results.find((res) => res.status === 400)!;
    expect(failure(refused)).toEqual({ status: 400, error: "storage_quota_exceeded" });
    expect(await usedBytes(school.id)).toBe(png.length * 3);
    // The loser stays pending with its object; once room is made it can be confirmed.
    const loser = refused === results[0] ? first : second;
    await setQuota(school.id, png.length * 4);
    expect((await confirm(admin, loser.media_asset_id)).status).toBe(200);
    expect(await usedBytes(school.id)).toBe(png.length * 4);
  });

  it("confirm checks the real size against the quota even when presign passed", async () => {
    const { school, admin } = await mediaSchool();
    const ticket = await uploaded(admin, "image", png);
    await setQuota(school.id, png.length - 1);
    expect(failure(await confirm(admin, ticket.media_asset_id))).toEqual({ status: 400, error: "storage_quota_exceeded" });
    expect(failure(await presign(admin, { kind: "image", filename: "x.png", declared_size: png.length, declared_mime: "image/png" }))).toEqual({
      status: 400,
      error: "storage_quota_exceeded",
    });
  });

  it("a fresh school gets the default quota of 10 GiB", async () => {
    const { school } = await mediaSchool();
    const [row] = await db().select().from(schema.tenants).where(eq(schema.tenants.id, school.id));
    expect(row!.storageCapBytes).toBe(10 * 1024 ** 3);
  });
});
