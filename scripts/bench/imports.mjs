/**
 * The bench of POST /t/imports?kind=users (issue 34): the dry run of a 5,000-row file naming the
 * rating bench's 5,000 students (scripts/bench.mjs), nine in ten with their names as stored
 * (`unchanged`), every tenth renamed (`update`). Each request validates every row (one batch of
 * lookups) and stores a plan; nothing else is written. Wired into scripts/bench.mjs: append
 * `IMPORTS_ENDPOINT` to its endpoints.
 */
import { DEMO } from "../seed/demo.mjs";

export const IMPORTS_BENCH = { rows: 5_000 };

const FIRST_NAMES = ["Lola", "Timur", "Aziz", "Nodira", "Bek", "Zarina", "Olim"];

/** The file: the bench students' addresses and names, as the rating bench's SQL writes them. */
export function importsBenchCsv() {
  const lines = ["email,first_name,last_name"];
  for (let i = 0; i < IMPORTS_BENCH.rows; i += 1) {
    const first = i % 10 === 9 ? "Renamed" : FIRST_NAMES[i % 7];
    lines.push(`bench.rating.${i}@bench.invalid,${first},Bench ${String(i).padStart(4, "0")}`);
  }
  return lines.join("\n") + "\n";
}

export const IMPORTS_ENDPOINT = {
  name: "POST /api/v1/t/imports?kind=users (dry run of 5,000 rows, admin)",
  method: "POST",
  path: "/api/v1/t/imports?kind=users",
  headers: (sessions) => ({ authorization: `Bearer ${sessions.admin.token}`, "x-tenant-subdomain": DEMO.subdomain, "content-type": "text/csv" }),
  bodyText: importsBenchCsv(),
};
