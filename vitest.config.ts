import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Wrangler prints "Using secrets defined in .dev.vars" once per test file at log level; the tests
// set their own bindings below, so only its warnings and errors are worth reading.
process.env.WRANGLER_LOG ??= "warn";

export default defineConfig(async () => {
  const controlMigrations = await readD1Migrations(path.join(import.meta.dirname, "migrations/control"));
  const schoolMigrations = await readD1Migrations(path.join(import.meta.dirname, "migrations/school"));
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            CONTROL_MIGRATIONS: controlMigrations,
            SCHOOL_MIGRATIONS: schoolMigrations,
            // Test-only secrets: two JWT keys so rotation (newest signs, all verify) is exercised.
            JWT_SECRETS: "test2:test-jwt-secret-two-0123456789abcdef0123,test1:test-jwt-secret-one-0123456789abcdef0123",
            PASSWORD_PEPPER: "test-pepper",
            DEV_MAILBOX: "true",
            DEV_PUSHBOX: "true",
            PUSH_TOKEN_KEY: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
            WEBHOOKS_ALLOW_LOOPBACK: "true",
            // Test-only certificate keys: the newest signs, the older one stays in the JWKS (rotation by kid).
            CERT_SIGNING_KEY: JSON.stringify([
              { kid: "test-cert-2", kty: "OKP", crv: "Ed25519", d: "F0HrZaGZLgKL7Dp39ZLoxYPLAgVHGQjW1mnoKCMAD7U", x: "5MhoMEg20yb0Le7jabvejF2mssED0IW40KYwtg2EeI4" },
              { kid: "test-cert-1", kty: "OKP", crv: "Ed25519", x: "QYk7QiPC6Hv7wnCeiHZiIK2oMwGDviua-VYSIzdsjwg" },
            ]),
          },
          // Webhook messages go to a queue no consumer reads: the tests run the consumer themselves with
          // a receiver of their own (test/webhooks/helpers.ts), so no delivery reaches the network or
          // races the test's own clock.
          // Item analysis requests and regrade chunks likewise: the tests run those consumers themselves
          // (test/content/item-analysis, test/content/regrade), rating window runs (test/content/rating/windows)
          // and curator report runs (test/content/analytics/reports.test.ts), so every other read of
          // curator analytics answers live.
          // Personal-data exports too: the tests build them with build() (test/data-export/helpers.ts). With
          // the real queue its consumer ran a second after the request (max_batch_timeout = 1), and on a
          // loaded host it won the race against a test that reads the export as still pending.
          // Push dispatches too: the tests deliver with runPushQueue (test/notifications/helpers.ts); a
          // consumer running on its own would log its deliveries after the file ended, and Vitest fails
          // a run whose worker closes with a console call still in flight.
          queueProducers: {
            PUSH_OUTBOX: { queueName: "lms-push-tests" },
            WEBHOOKS: { queueName: "lms-webhooks-tests" },
            DATA_EXPORT: { queueName: "lms-data-export-tests" },
            ITEM_ANALYSIS: { queueName: "lms-item-analysis-tests" },
            REGRADE: { queueName: "lms-regrade-tests" },
            RATING_WINDOWS: { queueName: "lms-rating-windows-tests" },
            CURATOR_REPORTS: { queueName: "lms-curator-reports-tests" },
          },
        },
      }),
    ],
    test: {
      // The contract coverage reporter fails a full run when a contract error pair was never provoked.
      reporters: ["default", "./test/contract/coverage-reporter.ts"],
      setupFiles: ["./test/helpers/setup.ts"],
      // At least two files at once: a file's import of the Worker is one module at a time, each a
      // round trip between workerd and this process, so one file keeps about one core busy and
      // Vitest's default (cores - 1) would leave the CI's second core idle (docs/testing.md, "Suite wall time").
      maxWorkers: Math.max(2, availableParallelism() - 1),
      // Console output (the log mail provider, expected error logs) only for tests that fail, next to their failure.
      silent: "passed-only",
      // The email and media-metadata consumers run on their own after a request (their queues are the
      // real ones, test/email/queue-wiring.test.ts proves the wiring) and log a line when they finish.
      // When that line is still on its way as the file's worker closes, Vitest reports an unhandled
      // teardown error and fails a run whose tests all passed (vitest-dev/vitest#11153). Only that
      // one error is dropped: a lost log line of a finished file. Every other unhandled error still
      // fails the run (docs/testing.md, "Late log lines").
      onUnhandledError(error) {
        if (error.name === "EnvironmentTeardownError" && error.message.includes('Closing rpc while "onUserConsoleLog" was pending')) return false;
      },
      // sanitize-html is CommonJS and requires postcss, whose `browser` field blanks optional
      // modules; the pool's per-file loader cannot follow that, so Vite bundles it first.
      // The other packages are bundled for speed: every test file loads the Worker afresh, one
      // module per round trip, and unbundled they are about 480 modules (pdf-lib 156, drizzle-orm
      // 111, zod 95, jose 46, hono 34, …) against about 25 bundled (docs/testing.md, "Suite wall time").
      // A package imported by src or the tests that is missing here is loaded module by module (slower, still correct).
      deps: {
        optimizer: {
          ssr: {
            enabled: true,
            include: [
              "sanitize-html",
              "drizzle-orm",
              "drizzle-orm/d1",
              "drizzle-orm/sqlite-core",
              "hono",
              "hono/cookie",
              "hono/cors",
              "hono/http-exception",
              "hono/secure-headers",
              "@hono/zod-openapi",
              "@asteasolutions/zod-to-openapi",
              "zod",
              "jose",
              "pdf-lib",
              "@pdf-lib/fontkit",
              "csv-parse/sync",
              "csv-stringify/sync",
              "aws4fetch",
            ],
          },
        },
      },
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  };
});
