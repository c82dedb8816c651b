import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { exportCoverageGaps } from "../../src/platform/data-export/sources";

/** Every table of a school database's live schema (all school migrations applied) with its columns. */
async function liveSchema() {
  const tables = await env.DB_SCHOOLS_0.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  const out: { table: string; columns: string[] }[] = [];
  for (const { name } of tables.results) {
    const columns = await env.DB_SCHOOLS_0.prepare(`PRAGMA table_info("${name.replaceAll('"', '""')}")`).all<{ name: string }>();
    out.push({ table: name, columns: columns.results.map((column) => column.name) });
  }
  return out;
}

describe("what the export reads", () => {
  it("every table of the live schema with a user column is exported or named as not personal with a reason", async () => {
    const live = await liveSchema();
    expect(live.some((entry) => entry.table === "quiz_attempt_answers")).toBe(true);
    expect(exportCoverageGaps(live)).toEqual([]);
  });

  it("fails on a table with a user column that nobody listed, naming it and what to do", async () => {
    await env.DB_SCHOOLS_0.exec("CREATE TABLE IF NOT EXISTS planted_export_notes (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, author_id TEXT, body TEXT)");
    try {
      expect(exportCoverageGaps(await liveSchema())).toEqual([
        'planted_export_notes (author_id): export it (a "delete" rule in PERSONAL_DATA, src/platform/users/personal-data.ts) ' +
          "or name it in NOT_EXPORTED (src/platform/data-export/sources.ts) with the reason it is not the person's data",
      ]);
    } finally {
      await env.DB_SCHOOLS_0.exec("DROP TABLE planted_export_notes");
    }
  });
});
