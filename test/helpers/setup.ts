import { applyD1Migrations, env } from "cloudflare:test";
import { afterEach } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

afterEach(() => setClockForTests(null));
