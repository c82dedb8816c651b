import { applyD1Migrations, env } from "cloudflare:test";
import { afterEach } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { shardNames } from "../../src/core/db/client";

// As in production: the control folder on DB, the school folder on every school database (the
// databases are independent, so their migrations run at once).
await Promise.all([
  applyD1Migrations(env.DB, env.CONTROL_MIGRATIONS),
  ...shardNames(env).map((shard) => applyD1Migrations(env[shard as "DB_SCHOOLS_0"], env.SCHOOL_MIGRATIONS)),
]);

afterEach(() => setClockForTests(null));
