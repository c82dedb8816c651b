import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { formatHundredths } from "../../core/db/decimal";
import { iso } from "../../core/lib/clock";

/** Columns that hold a secret or its hash: never written to the document (as the API never returns them). */
const SECRET_COLUMN = /(^|_)(password|hash|token|secret|otp|private_key|whsec|ciphertext)s?$/i;

/** Named like a secret but shown by the API: an import's `plan_hash` is the fingerprint its apply call sends back. */
const SHOWN_BY_THE_API = new Set(["imports.plan_hash"]);

/** Epoch-millisecond columns: `*_at`, and the audit entry's `at`. */
const isTime = (name: string) => name === "at" || name.endsWith("_at");

/**
 * Where the API names a value otherwise than the rule "hundredths under the name without the
 * suffix" would (`table.column` → the API's field name), the document takes the API's name.
 */
const API_NAMES: Readonly<Record<string, string>> = {
  "exam_attempts.final_max_hundredths": "final_max_score",
  "quiz_attempt_answers.awarded_hundredths": "awarded_points",
};

/**
 * Values the API shows in another form than the column holds. Certificate codes are stored
 * canonical (16 characters) and shown grouped by four (docs/decisions/certificates.md, "Codes and
 * the shard"); the grouping is written here, as the platform layer does not import the content
 * area that owns it.
 */
const API_FORMS: Readonly<Record<string, (value: unknown) => unknown>> = {
  "certificates.code": (value) => (typeof value === "string" ? (value.match(/.{1,4}/g) ?? []).join("-") : value),
};

/**
 * A row as the API would show its values
 * (docs/decisions/data-export.md, "Values as the API shows them"): keys are the columns' names,
 * epoch-millisecond times ISO strings, hundredths (`*_hundredths`) decimal strings under the name
 * without the suffix (or the API's own name), flags booleans and JSON parsed (drizzle decodes
 * both); secret columns are left out.
 */
export function presentRow(table: string, columns: Record<string, SQLiteColumn>, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [property, column] of Object.entries(columns)) {
    const name = column.name;
    const key = `${table}.${name}`;
    if (SECRET_COLUMN.test(name) && !SHOWN_BY_THE_API.has(key)) continue;
    const value = row[property];
    if (typeof value === "number" && isTime(name)) out[name] = iso(value);
    else if (typeof value === "number" && name.endsWith("_hundredths")) out[API_NAMES[key] ?? name.slice(0, -"_hundredths".length)] = formatHundredths(value);
    else out[name] = API_FORMS[key] ? API_FORMS[key](value ?? null) : (value ?? null);
  }
  return out;
}
