import { env } from "cloudflare:test";
import { afterEach } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { shardNames } from "../../src/core/db/client";
import { migrate } from "./migrate";

// As in production: the control folder on DB, the school folder on every school database (the
// databases are independent, so their migrations run at once). Each folder goes in one batch
// (test/helpers/migrate.ts, docs/testing.md "Suite wall time").
await Promise.all([
  migrate(env.DB, env.CONTROL_MIGRATIONS),
  ...shardNames(env).map((shard) => migrate(env[shard as "DB_SCHOOLS_0"], env.SCHOOL_MIGRATIONS)),
]);

afterEach(() => setClockForTests(null));
