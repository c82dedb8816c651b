/**
 * `npm run tour -- <area> [--base URL] [--persist-to DIR]`, `npm run tour -- --list`: runs one
 * area's tour (scripts/tours/<area>.mjs) against a running server, printing every request and its
 * answer; exits 1 at the first unexpected status. The default server is the one `npm run dev` is
 * running (it writes its URL to .wrangler/dev-server.json), else http://localhost:8787.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { CliError, configuredDevPort, ROOT, runMain } from "./lib/project.mjs";
import { DEV_SERVER_FILE, readDevServer } from "./lib/dev-server.mjs";
import { Tour, TourFailure } from "./tours/lib/tour.mjs";

const TOURS = path.join(ROOT, "scripts", "tours");
const USAGE = "usage: npm run tour -- <area> [--base URL] [--persist-to DIR] [--wait SECONDS]   (npm run tour -- --list)";

function areas() {
  return readdirSync(TOURS)
    .filter((file) => file.endsWith(".mjs"))
    .map((file) => file.slice(0, -".mjs".length))
    .sort();
}

async function load(area) {
  const file = path.join(TOURS, `${area}.mjs`);
  if (!/^[a-z][a-z0-9-]*$/.test(area) || !existsSync(file)) throw new CliError(`no tour "${area}"; the tours are: ${areas().join(", ")}\n${USAGE}`);
  return import(pathToFileURL(file).href);
}

/**
 * Where the tour goes: --base, else the server `npm run dev` says it is running (with its
 * --persist-to, which the few tours that write local state by script need), else the configured port.
 */
function target(values) {
  const running = readDevServer();
  if (values.base) {
    const base = values.base.replace(/\/+$/, "").replace(/\/api\/v1$/, "");
    const persistTo = values["persist-to"] ?? (running?.url === base ? running.persistTo : undefined);
    return { base, persistTo };
  }
  if (running) return { base: running.url, persistTo: values["persist-to"] ?? running.persistTo };
  return { base: `http://localhost:${configuredDevPort()}`, persistTo: values["persist-to"] };
}

/** `--wait S`: for a server still starting (CI): up to S seconds until it answers any HTTP request. */
async function waitForServer(base, seconds) {
  if (!Number.isFinite(seconds) || seconds <= 0) throw new CliError(`--wait takes a number of seconds\n${USAGE}`);
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    try {
      await fetch(`${base}/api/v1/docs`, { method: "HEAD", signal: AbortSignal.timeout(5_000) });
      return;
    } catch {
      if (Date.now() > deadline) throw new CliError(`${base} did not answer within ${seconds} s`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

async function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { base: { type: "string" }, "persist-to": { type: "string" }, list: { type: "boolean", default: false }, wait: { type: "string" } },
    });
  } catch (err) {
    throw new CliError(`${err.message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.list) {
    for (const area of areas()) console.log(`${area.padEnd(14)} ${(await load(area)).summary}`);
    return;
  }
  if (positionals.length !== 1) throw new CliError(USAGE);
  const tourModule = await load(positionals[0]);
  const { base, persistTo } = target(values);
  if (values.wait !== undefined) await waitForServer(base, Number(values.wait));
  const tour = new Tour({ base, persistTo });
  console.log(`Tour "${positionals[0]}": ${tourModule.summary}\nServer: ${base}${values.base ? "" : readDevServer() ? ` (from ${path.relative(ROOT, DEV_SERVER_FILE)})` : " (the configured port; pass --base URL for another)"}`);
  try {
    await tourModule.run(tour);
  } catch (err) {
    if (err instanceof TourFailure) throw new CliError(`tour "${positionals[0]}" failed: ${err.message}`);
    throw err;
  } finally {
    await tour.cleanup();
  }
  console.log(`\nTour "${positionals[0]}" passed: ${tour.stepCount} requests.`);
}

runMain(main);
