/**
 * `npm run dev [-- wrangler dev args]`: local secrets, migrations and demo data, then `wrangler dev`.
 * Works on a fresh clone after `npm install`; every step before `wrangler dev` is non-interactive.
 */
import { constants } from "node:os";
import { seed, printDemoLogins } from "./seed.mjs";
import { applyMigrations, configuredDevPort, ensureDevVars, firstFreePort, flagValue, runMain, spawnWrangler } from "./lib/project.mjs";

async function main() {
  const args = process.argv.slice(2);
  const devVars = ensureDevVars();
  if (devVars === "created") console.log("Created .dev.vars from .dev.vars.example (local-only secrets).");
  else if (devVars.length > 0) console.log(`Added to .dev.vars from .dev.vars.example: ${devVars.join(", ")}.`);

  // Keep the D1 steps on the same storage `wrangler dev` will open.
  const target = { remote: false, persistTo: flagValue(args, "--persist-to") };
  await applyMigrations(target);
  await seed(target);

  // Pick the port here (the configured one, or the next free one) so the URLs printed are the real ones.
  const explicit = flagValue(args, "--port");
  const port = explicit ?? String(await firstFreePort(configuredDevPort()));
  const passThrough = explicit ? args : [...args, "--port", port];
  if (!explicit && port !== String(configuredDevPort())) console.log(`Port ${configuredDevPort()} is taken; serving on ${port}.`);
  printDemoLogins(`http://localhost:${port}`);

  const child = spawnWrangler(["dev", ...passThrough], { interactive: true, stdio: "inherit" });
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
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}

runMain(main);
