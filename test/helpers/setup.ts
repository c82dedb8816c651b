import { applyD1Migrations, env } from "cloudflare:test";
import { afterEach } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { shardNames } from "../../src/core/db/client";

// As in production: the control folder on DB, the school folder on every school database.
await applyD1Migrations(env.DB, env.CONTROL_MIGRATIONS);
for (const shard of shardNames(env)) await applyD1Migrations(env[shard as "DB_SCHOOLS_0"], env.SCHOOL_MIGRATIONS);

afterEach(() => setClockForTests(null));
