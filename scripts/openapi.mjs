/**
 * `npm run openapi [-- --lint | --client]`: the API document exactly as the Worker serves it, for tools.
 *
 * Bundles src/app.ts for Node (esbuild), asks it for GET /api/v1/openapi.json with the local vars,
 * writes the document to .wrangler/openapi/openapi.json, the full document's types to
 * test/contract/openapi.generated.d.ts and the TypeScript client's types to
 * .wrangler/openapi/client-schema.d.ts (openapi-typescript; not committed, regenerated before
 * typecheck and test, so test/client/schema-current.test.ts can compare them with the committed
 * ones). With --client (`npm run client:build`) the client's types are also written to
 * clients/typescript/src/schema.d.ts, which is committed. With --lint, `redocly lint` checks the
 * document against its recommended ruleset and the run fails on any error or warning.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import openapiTS, { astToString } from "openapi-typescript";
import { CliError, parseDevVars, ROOT, runMain } from "./lib/project.mjs";

const OUT_DIR = path.join(ROOT, ".wrangler", "openapi");
const DOCUMENT = path.join(OUT_DIR, "openapi.json");
const TYPES = path.join(ROOT, "test", "contract", "openapi.generated.d.ts");
const FRESH_CLIENT_TYPES = path.join(OUT_DIR, "client-schema.d.ts");
const CLIENT_TYPES = path.join(ROOT, "clients", "typescript", "src", "schema.d.ts");
/** Headers the client's own layer sends on every call (tenant, bookmark), so no call passes them. */
const CLIENT_MANAGED_HEADERS = new Set(["x-tenant-subdomain", "x-d1-bookmark"]);

/** [vars] of wrangler.toml (flat `KEY = "value"` lines) plus the example secrets: what `npm run dev` runs with. */
function localEnv() {
  const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  const section = /^\[vars\]\n([\s\S]*?)(?=^\[)/m.exec(toml)?.[1] ?? "";
  const vars = Object.fromEntries([...section.matchAll(/^([A-Z_]+)\s*=\s*"([^"]*)"/gm)].map((match) => [match[1], match[2]]));
  // The document route reads no binding; a stand-in that refuses queries proves it.
  const DB = { prepare: () => { throw new Error("the OpenAPI document must not query the database"); } };
  return { ...vars, ...parseDevVars(readFileSync(path.join(ROOT, ".dev.vars.example"), "utf8")), DB };
}

export async function servedDocument() {
  mkdirSync(OUT_DIR, { recursive: true });
  const bundle = path.join(OUT_DIR, "app.mjs");
  await build({
    entryPoints: [path.join(ROOT, "src", "app.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: bundle,
    logLevel: "error",
    // The certificate font, bundled as bytes as wrangler's Data rule does (wrangler.toml).
    loader: { ".ttf": "binary" },
    // Node 22 has no Uint8Array.fromBase64, which the binary loader uses for newer targets.
    target: "node22",
    // CommonJS dependencies (sanitize-html's postcss) require Node built-ins, which an ES module bundle has no `require` for.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  const { app } = await import(`${pathToFileURL(bundle).href}?t=${Date.now()}`);
  const res = await app.request("http://api.lms.localhost/api/v1/openapi.json", {}, localEnv());
  if (res.status !== 200) throw new CliError(`GET /api/v1/openapi.json answered ${res.status}: ${await res.text()}`);
  return res.json();
}

function lint() {
  const redocly = path.join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "redocly.cmd" : "redocly");
  const run = spawnSync(redocly, ["lint", DOCUMENT, "--extends", "recommended", "--format", "json"], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    shell: process.platform === "win32",
  });
  let report;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    throw new CliError(`redocly lint gave no report (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  }
  const { errors = 0, warnings = 0 } = report.totals ?? {};
  for (const problem of report.problems ?? []) {
    const where = problem.location?.map((location) => location.pointer).join(", ");
    console.log(`${problem.severity} ${problem.ruleId}: ${problem.message} (${where})`);
  }
  console.log(`redocly lint (recommended): ${errors} errors, ${warnings} warnings`);
  if (errors > 0 || warnings > 0) process.exitCode = 1;
}

/** The document without the header parameters the client manages (its operations then need no `params.header`). */
function clientDocument(document) {
  const copy = structuredClone(document);
  for (const item of Object.values(copy.paths ?? {})) {
    for (const operation of Object.values(item)) {
      if (!operation || typeof operation !== "object" || !Array.isArray(operation.parameters)) continue;
      operation.parameters = operation.parameters.filter((parameter) => !(parameter.in === "header" && CLIENT_MANAGED_HEADERS.has(String(parameter.name).toLowerCase())));
    }
  }
  return copy;
}

/** The committed client types' text: a pure function of the document, so a rebuild after a merge is deterministic. */
export async function clientTypes(document) {
  return `// Generated by \`npm run client:build\` from the served OpenAPI document; do not edit.\n${astToString(await openapiTS(clientDocument(document)))}`;
}

function writeIfChanged(file, text) {
  mkdirSync(path.dirname(file), { recursive: true });
  if (!existsSync(file) || readFileSync(file, "utf8") !== text) writeFileSync(file, text);
}

async function main() {
  const { values } = parseArgs({ options: { lint: { type: "boolean", default: false }, client: { type: "boolean", default: false } } });
  const document = await servedDocument();
  writeFileSync(DOCUMENT, JSON.stringify(document, null, 2) + "\n");
  const types = `// Generated by scripts/openapi.mjs from the served document; not committed, do not edit.\n${astToString(await openapiTS(document))}`;
  writeIfChanged(TYPES, types);
  const client = await clientTypes(document);
  writeIfChanged(FRESH_CLIENT_TYPES, client);
  if (values.client) {
    writeIfChanged(CLIENT_TYPES, client);
    console.log(`wrote ${path.relative(ROOT, CLIENT_TYPES)}`);
  }
  if (values.lint) lint();
}

runMain(main);
