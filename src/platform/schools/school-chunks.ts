import { and, asc, eq, gt, isNull, type SQL } from "drizzle-orm";
import { shardNames } from "../../core/db/client";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { forSchool, systemActor } from "../../core/school";
import { tenants } from "../../db/schema";
import { schoolSummary, schoolSummaryColumns } from "./lookup";

/**
 * Schools a cron job takes at once: one control read lists them, and the job runs one batch on
 * their shard with a statement per school (D1 binds at most 100 parameters per statement and a
 * batch of a few hundred statements still runs in one round trip).
 */
export const SCHOOLS_PER_CHUNK = 100;

/** The schools of one chunk: all on `shard`, each with its own school context. */
export interface SchoolChunk {
  shard: string;
  schools: SchoolCtx<SystemActor>[];
}

/**
 * Walks shards, then schools: for each shard (in binding order) the live schools stored on it, by
 * id in keyset pages of `SCHOOLS_PER_CHUNK`, each as a `SchoolCtx` of the system actor `job`.
 * `where` narrows the schools (a condition on `tenants`, e.g. the billing gate); `deleted: true`
 * walks soft-deleted schools too (cleanup that must finish after a school is gone, such as its
 * files). A job that stops early (its per-run bound is spent) simply stops iterating; nothing is held.
 */
export async function* schoolChunks(ctx: ServiceContext, job: string, where?: SQL, options: { deleted?: boolean } = {}): AsyncGenerator<SchoolChunk> {
  const actor = systemActor(job);
  for (const shard of shardNames(ctx.env)) {
    let after = "";
    for (;;) {
      const rows = await ctx.db
        .select(schoolSummaryColumns)
        .from(tenants)
        .where(and(eq(tenants.shard, shard), options.deleted ? undefined : isNull(tenants.deletedAt), gt(tenants.id, after), where))
        .orderBy(asc(tenants.id))
        .limit(SCHOOLS_PER_CHUNK);
      if (rows.length > 0) yield { shard, schools: rows.map((row) => forSchool(ctx, schoolSummary(row), actor)) };
      if (rows.length < SCHOOLS_PER_CHUNK) break;
      after = rows[rows.length - 1]!.id;
    }
  }
}
