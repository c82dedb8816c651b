import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { appendFileSync, copyFileSync, existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const DEV_VARS = path.join(ROOT, ".dev.vars");
const DEV_VARS_EXAMPLE = path.join(ROOT, ".dev.vars.example");
const BIN = path.join(ROOT, "node_modules", ".bin");
const WRANGLER = path.join(BIN, process.platform === "win32" ? "wrangler.cmd" : "wrangler");

/**
 * Copies .dev.vars.example to .dev.vars when absent (returns "created"). An existing .dev.vars
 * keeps its values and gains the keys the example added since (returns the added names), so a
 * pull that brings a new local setting (such as DEV_PUSHBOX) works without a manual step.
 */
export function ensureDevVars() {
  if (!existsSync(DEV_VARS)) {
    copyFileSync(DEV_VARS_EXAMPLE, DEV_VARS);
    return "created";
  }
  const exampleText = readFileSync(DEV_VARS_EXAMPLE, "utf8");
  const present = readDevVars();
  const missing = exampleText.split(/\r?\n/).filter((line) => {
    const key = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line.trim())?.[1];
    return key !== undefined && !(key in present);
  });
  if (missing.length === 0) return [];
  appendFileSync(DEV_VARS, `\n# Added from .dev.vars.example by npm run dev\n${missing.join("\n")}\n`);
  return missing.map((line) => line.split("=")[0].trim());
}

/** The `KEY = "value"` lines of a .dev.vars file (dotenv subset: comments, quotes, \n escapes in double quotes). */
export function parseDevVars(text) {
  const vars = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, key, rest] = match;
    vars[key] = unquote(rest);
  }
  return vars;
}

function unquote(raw) {
  const quote = raw[0];
  if (quote === '"' || quote === "'" || quote === "`") {
    const end = raw.indexOf(quote, 1);
    const inner = end === -1 ? raw.slice(1) : raw.slice(1, end);
    return quote === '"' ? inner.replaceAll("\\n", "\n") : inner;
  }
  return raw.replace(/\s+#.*$/, "").trim();
}

export function readDevVars() {
  return parseDevVars(readFileSync(DEV_VARS, "utf8"));
}

/**
 * The pepper the target Worker hashes with: the local one comes from .dev.vars (what `wrangler dev`
 * loads); a deployed one is a secret nobody can read back, so it must be handed in by env var.
 */
export function passwordPepper(target) {
  if (target.remote) {
    const pepper = process.env.PASSWORD_PEPPER;
    if (!pepper) throw new CliError("--remote needs the deployed PASSWORD_PEPPER in the PASSWORD_PEPPER environment variable");
    return pepper;
  }
  ensureDevVars();
  const pepper = readDevVars().PASSWORD_PEPPER;
  if (!pepper) throw new CliError(".dev.vars has no PASSWORD_PEPPER (compare with .dev.vars.example)");
  return pepper;
}

/** A failure whose message says everything the user needs: printed without a stack trace. */
export class CliError extends Error {}

/** node_modules/.bin first, so wrangler's `#!/usr/bin/env node` finds the project's Node 22 even outside `npm run`. */
function toolEnv(extra = {}) {
  const pathKey = Object.keys(process.env).find((key) => key.toUpperCase() === "PATH") ?? "PATH";
  const pathValue = [BIN, path.dirname(process.execPath), process.env[pathKey] ?? ""].join(path.delimiter);
  // Offline-friendly and quiet: no telemetry, and no request.cf download from workers.cloudflare.com
  // (it prints a stack trace without internet). A value the caller set in the shell wins.
  const quiet = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
  return { ...quiet, ...process.env, [pathKey]: pathValue, ...extra };
}

/** Spawns the project's own wrangler. `interactive: false` makes every prompt take its default answer. */
export function spawnWrangler(args, { interactive = false, stdio = "inherit", detached = false } = {}) {
  const env = toolEnv(interactive ? {} : { CI: "true" });
  // Node refuses to spawn a .cmd shim without a shell (Windows only).
  return spawn(WRANGLER, args, { cwd: ROOT, env, stdio, detached, shell: process.platform === "win32" });
}

/** Runs wrangler to completion; output is shown live, or captured and shown only on failure with `quiet`. */
export function runWrangler(args, { quiet = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawnWrangler(args, { stdio: quiet ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"] });
    let output = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    child.stderr?.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) return resolve(output);
      if (quiet) process.stderr.write(output);
      reject(Object.assign(new Error(`wrangler ${args.slice(0, 3).join(" ")} failed (${signal ?? `exit ${code}`})`), { output }));
    });
  });
}

/** Where D1 commands go: `{ remote: true }` or the local state (optionally a --persist-to directory). */
export function d1TargetFlags(target) {
  if (target.remote) return ["--remote"];
  return target.persistTo ? ["--local", "--persist-to", target.persistTo] : ["--local"];
}

/** The control database's binding: schools (each with its shard), tariffs, payments, the superadmin. */
export const CONTROL_DB = "DB";

/**
 * The school database bindings (`DB_SCHOOLS_<n>`) of wrangler.toml's top-level `[[d1_databases]]`,
 * in index order. Like the Worker (src/core/db/client.ts), refuses a gap in the numbering.
 */
export function schoolShardBindings() {
  const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  const indexes = [];
  let table = "";
  for (const line of toml.split(/\r?\n/)) {
    const header = /^\s*(\[\[?[^\]]+\]\]?)/.exec(line)?.[1];
    if (header) table = header.replace(/\s+/g, "");
    const binding = /^\s*binding\s*=\s*["']DB_SCHOOLS_(0|[1-9][0-9]*)["']/.exec(line)?.[1];
    if (table === "[[d1_databases]]" && binding !== undefined) indexes.push(Number(binding));
  }
  indexes.sort((a, b) => a - b);
  if (indexes.length === 0) throw new CliError("wrangler.toml binds no school database (DB_SCHOOLS_0)");
  indexes.forEach((index, position) => {
    if (index !== position) throw new CliError(`wrangler.toml: school databases must be DB_SCHOOLS_0…N-1 without gaps; DB_SCHOOLS_${position} is missing`);
  });
  return indexes.map((index) => `DB_SCHOOLS_${index}`);
}

/**
 * Applies migrations/control to `DB` and migrations/school to every school shard (wrangler takes
 * each binding's `migrations_dir` from wrangler.toml). Wrangler's own output (a table redrawn per
 * migration) is captured and shown only on failure; `log` gets one line per database instead.
 * Returns `[{ binding, applied: [file names] }]`.
 */
export async function applyMigrations(target, { log = console.log } = {}) {
  const results = [];
  for (const binding of [CONTROL_DB, ...schoolShardBindings()]) {
    let output;
    try {
      output = await runWrangler(["d1", "migrations", "apply", binding, ...d1TargetFlags(target)], { quiet: true });
    } catch (err) {
      if (target.remote) throw err;
      // Local state from before the control/school split has the old single-folder history, so the
      // baselines collide with its tables.
      throw new CliError(
        `${err.message}\nIf the local state predates the split into a control database and school shards, ` +
          `delete ${target.persistTo ?? ".wrangler/state"} and run again (docs/operations.md).`,
      );
    }
    const applied = appliedMigrations(output);
    results.push({ binding, applied });
    const names = applied.length > 1 ? `${applied[0]} … ${applied.at(-1)}` : applied[0];
    log(`Migrations ${binding.padEnd(13)} ${applied.length === 0 ? "up to date" : `${applied.length} applied: ${names}`}`);
  }
  return results;
}

/** The file names of wrangler's "Migrations to be applied" table (none when it printed "No migrations to apply"). */
export function appliedMigrations(output) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const start = plain.indexOf("Migrations to be applied");
  if (start === -1) return [];
  const names = [];
  for (const line of plain.slice(start).split(/\r?\n/).slice(1)) {
    const name = /^│\s*(\S+\.sql)\s*│\s*$/.exec(line.trim())?.[1];
    if (name) names.push(name);
    else if (line.trim().startsWith("└")) break;
  }
  return names;
}

/**
 * Executes SQL on one D1 binding (`DB` or a `DB_SCHOOLS_<n>`) through a temporary file, in one
 * `wrangler d1 execute --file` call. Returns the per-statement results when wrangler reports them
 * (local D1 does), else null.
 */
export async function executeSql(binding, sql, target) {
  if (binding !== CONTROL_DB && !/^DB_SCHOOLS_\d+$/.test(binding ?? "")) throw new Error(`executeSql: not a D1 binding: ${binding}`);
  const dir = await mkdtemp(path.join(tmpdir(), "lms-sql-"));
  const file = path.join(dir, "statements.sql");
  try {
    await writeFile(file, sql, "utf8");
    const output = await runWrangler(["d1", "execute", binding, ...d1TargetFlags(target), "--yes", "--json", "--file", file], { quiet: true });
    try {
      const parsed = JSON.parse(output);
      return Array.isArray(parsed) ? parsed : null;
    } catch {
      return null;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Value of `--name value` or `--name=value` in a raw argument list. */
export function flagValue(args, name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
  }
  return undefined;
}

/** Runs an async CLI entry point; exit code 1 on failure. */
export function runMain(main) {
  main().catch((err) => {
    console.error(err instanceof CliError ? `error: ${err.message}` : err);
    process.exit(1);
  });
}

/** The port `npm run dev` prefers: `[dev] port` of wrangler.toml (8787 when unset). */
export function configuredDevPort() {
  const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  const match = /^\[dev\][^[]*?^port\s*=\s*(\d+)/ms.exec(toml);
  return match ? Number(match[1]) : 8787;
}

function portIsFree(port, host) {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** `preferred` when nothing listens there, else the next free one, so the printed URL is the real one. */
export async function firstFreePort(preferred, host = "localhost") {
  for (let port = preferred; port < preferred + 50; port++) if (await portIsFree(port, host)) return port;
  throw new CliError(`no free port between ${preferred} and ${preferred + 49}; pass one with -- --port N`);
}
