/**
 * `npm run dev [-- wrangler dev args]`: local secrets, migrations and demo data, then `wrangler dev`.
 * Works on a fresh clone after `npm install`; every step before `wrangler dev` is non-interactive.
 * Prints a line per database and the demo logins last, once the server answers, so they are not
 * buried under wrangler's banner; writes the server's URL to .wrangler/dev-server.json for `npm run tour`.
 */
import { constants } from "node:os";
import path from "node:path";
import { seed, printDemoLogins } from "./seed.mjs";
import { clearDevServer, writeDevServer } from "./lib/dev-server.mjs";
import { requestDemoExport } from "./lib/demo-export.mjs";
import { applyMigrations, configuredDevPort, ensureCertSigningKey, ensureDevVars, firstFreePort, flagValue, runMain, spawnWrangler } from "./lib/project.mjs";

async function main() {
  const args = process.argv.slice(2);
  const devVars = ensureDevVars();
  if (devVars === "created") console.log("Created .dev.vars from .dev.vars.example (local-only secrets).");
  else if (devVars.length > 0) console.log(`Added to .dev.vars from .dev.vars.example: ${devVars.join(", ")}.`);
  if (ensureCertSigningKey()) console.log("Generated a local certificate signing key (CERT_SIGNING_KEY) in .dev.vars.");

  // Keep the D1 steps on the same storage `wrangler dev` will open.
  const persistTo = flagValue(args, "--persist-to");
  const target = { remote: false, persistTo };
  await applyMigrations(target);
  await seed(target);
  console.log("Demo data written.");

  // Pick the port here (the configured one, or the next free one) so the URLs printed are the real ones.
  const explicit = flagValue(args, "--port");
  const port = explicit ?? String(await firstFreePort(configuredDevPort()));
  const passThrough = explicit ? args : [...args, "--port", port];
  if (!explicit && port !== String(configuredDevPort())) console.log(`Port ${configuredDevPort()} is taken; serving on ${port}.`);
  const url = `http://localhost:${port}`;
  console.log("Starting wrangler dev; the demo logins follow once it is ready.\n");

  const child = spawnWrangler(["dev", ...passThrough], { interactive: true, stdio: "inherit" });
  writeDevServer({ url, persistTo: persistTo && path.resolve(persistTo) });
  process.on("exit", clearDevServer);
  // Stay alive until wrangler has shut down, so the prompt does not come back while it still prints.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  // `npm run` wraps this script in `sh -c`, which dies on SIGTERM without passing it on; when the
  // parent is gone, stop wrangler instead of leaving a server running without its terminal.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && child.kill("SIGTERM"), 1_000).unref();
  child.on("error", (err) => {
    console.error(err);
    process.exit(1);
  });
  let exited = false;
  child.on("exit", (code, signal) => {
    exited = true;
    process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
  });

  // Wrangler keeps the terminal (its hotkeys need stdin and stdout to be a TTY), so readiness is
  // asked of the server: wrangler's proxy accepts connections before the Worker is up and holds a
  // request until it is, so one request answered means "Ready on" has been printed (it shows up
  // once in wrangler's request log).
  if (await waitUntilServing(url, () => exited)) {
    printDemoLogins(url);
    // The export needs the running Worker and its queue: asked for here, not seeded.
    console.log(await requestDemoExport(url).catch((err) => `Demo export: not asked for (${err.message}).`));
  }
}

/** True once the server answers a request; also after three minutes (a setup this cannot probe), so the logins still appear. */
async function waitUntilServing(url, stopped) {
  const deadline = Date.now() + 180_000;
  while (!stopped() && Date.now() < deadline) {
    try {
      // No short client timeout: an aborted request would still be served and logged, once per try.
      await fetch(`${url}/api/v1/docs`, { method: "HEAD", signal: AbortSignal.timeout(Math.max(1_000, deadline - Date.now())) });
      return !stopped();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return !stopped();
}

runMain(main);
