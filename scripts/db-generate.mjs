/**
 * `npm run db:generate [-- drizzle-kit generate args]`: drizzle-kit once per schema group
 * (drizzle.config.ts), control (migrations/control) then school (migrations/school), or only the
 * group named by DRIZZLE_GROUP=control|school (needed for `-- --custom`, which makes an empty file).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { CliError, ROOT, runMain } from "./lib/project.mjs";

const GROUPS = ["control", "school"];

async function main() {
  const only = process.env.DRIZZLE_GROUP;
  if (only !== undefined && !GROUPS.includes(only)) throw new CliError(`DRIZZLE_GROUP must be one of ${GROUPS.join(", ")} (or unset for both)`);
  const kit = path.join(ROOT, "node_modules", ".bin", process.platform === "win32" ? "drizzle-kit.cmd" : "drizzle-kit");
  for (const group of only ? [only] : GROUPS) {
    console.log(`\n== ${group}: migrations/${group}`);
    const run = spawnSync(kit, ["generate", ...process.argv.slice(2)], {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, DRIZZLE_GROUP: group },
      shell: process.platform === "win32",
    });
    if (run.status !== 0) throw new CliError(`drizzle-kit generate failed for the ${group} group`);
  }
}

runMain(main);
