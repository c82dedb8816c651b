import { createHash } from "node:crypto";
import { upsert } from "../lib/sql.mjs";
import { DAY_MS, DEMO, id } from "./demo.mjs";

/**
 * An example roster import of the demo school, uploaded by Ada and not applied: one new student,
 * one existing student renamed, one unchanged and one bad row (docs/decisions/imports.md). It is
 * valid 24 hours from the seed run; a later run renews it. `GET /t/imports/01941f29-7c00-7000-8000-000000001c01`
 * shows it; applying needs its plan_hash.
 */
export function imports({ now }) {
  const [sara, timur] = DEMO.students;
  const header = ["email", "first_name", "last_name"];
  const lines = [
    ["nina.new@demo.test", "Nina", "New"],
    [sara.email, sara.firstName, sara.lastName],
    [timur.email, "Timofey", timur.lastName],
    ["not-an-email", "Bad", "Row"],
  ];
  const plan = [
    {
      row: 1,
      action: "create",
      key: "nina.new@demo.test",
      changes: { email: [null, "nina.new@demo.test"], first_name: [null, "Nina"], last_name: [null, "New"], role: [null, "student"] },
      errors: [],
    },
    { row: 2, action: "unchanged", key: sara.email, changes: {}, errors: [] },
    { row: 3, action: "update", key: timur.email, changes: { first_name: [timur.firstName, "Timofey"] }, errors: [] },
    { row: 4, action: "error", key: "not-an-email", changes: {}, errors: [{ column: "email", code: "invalid_email" }] },
  ];
  const rows = plan.map((row, index) => ({
    ...row,
    values: Object.fromEntries(header.map((column, cell) => [column, lines[index][cell]])),
    raw: lines[index],
  }));
  const file = [header, ...lines].map((line) => line.join(",")).join("\n") + "\n";
  const sha256 = (text) => createHash("sha256").update(text).digest("hex");
  const importId = id(0x1c01);
  const restore = ["status", "expires_at", "progress", "applied_at", "result", "plan_hash", "counts"];
  return [
    upsert(
      "imports",
      {
        id: importId,
        tenant_id: DEMO.tenantId,
        kind: "users",
        status: "ready",
        created_by: DEMO.admin.id,
        created_at: now,
        expires_at: now + DAY_MS,
        applied_at: null,
        file_sha256: sha256(file),
        plan_hash: sha256(JSON.stringify(plan.map((row) => [row.row, row.action, row.key, row.changes, row.errors]))),
        counts: JSON.stringify({ rows: 4, create: 1, update: 1, unchanged: 1, error: 1 }),
        columns: JSON.stringify(header),
        delimiter: ",",
        progress: 0,
        result: null,
      },
      { restore },
    ),
    upsert("import_chunks", { tenant_id: DEMO.tenantId, import_id: importId, chunk: 0, rows: JSON.stringify(rows) }, { key: ["import_id", "chunk"], restore: ["rows"] }),
  ];
}
