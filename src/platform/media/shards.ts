import { shardDb, shardNames, type Db } from "../../core/db/client";
import type { ServiceContext } from "../../core/http/context";

/**
 * A lookup by a globally unique id where the request names no school context (a signed download
 * link, the worker upload form): the same read in every school database, in parallel, so it costs
 * one round trip of wall time; the rows of all shards, concatenated.
 */
export async function inEveryShard<T>(ctx: Pick<ServiceContext, "env">, read: (db: Db) => Promise<T[]>): Promise<T[]> {
  const found = await Promise.all(shardNames(ctx.env).map((shard) => read(shardDb(ctx.env, shard))));
  return found.flat();
}
