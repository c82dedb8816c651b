import { parse } from "csv-parse/sync";
import { ApiError } from "../../core/http/errors";
import { importsErrors as e } from "./errors";

/** 05 section 3: up to 5 MB and 5,000 data rows (docs/decisions/imports.md, "Parsing and limits"). */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
export const MAX_IMPORT_ROWS = 5000;

export type ImportKind = "users" | "enrollments" | "group_members";
export type Column = "email" | "first_name" | "last_name" | "role" | "group" | "course_slug";

/** Header spellings per column, compared trimmed and lower-cased (English or Russian). */
const ALIASES: Record<Column, readonly string[]> = {
  email: ["email", "e-mail", "почта"],
  first_name: ["first_name", "имя"],
  last_name: ["last_name", "фамилия"],
  role: ["role", "роль"],
  group: ["group", "группа"],
  course_slug: ["course_slug", "курс"],
};

export const COLUMNS: Record<ImportKind, { required: readonly Column[]; optional: readonly Column[] }> = {
  users: { required: ["email", "first_name", "last_name"], optional: ["role", "group"] },
  enrollments: { required: ["email", "course_slug"], optional: [] },
  group_members: { required: ["email", "group"], optional: [] },
};

export interface ParsedFile {
  delimiter: "," | ";";
  /** The header cells as written (errors.csv repeats them). */
  header: string[];
  /** Each data row: its cells as written, and the kind's columns by name (trimmed; "" when absent). */
  rows: { raw: string[]; values: Partial<Record<Column, string>> }[];
}

/**
 * Comma or semicolon, whichever the header line holds more of outside quotes (a tie is a comma):
 * spreadsheets in a Russian locale save CSV with semicolons.
 */
function detectDelimiter(text: string): "," | ";" {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "\n" || char === "\r")) break;
    else if (!quoted && char === ",") commas += 1;
    else if (!quoted && char === ";") semicolons += 1;
  }
  return semicolons > commas ? ";" : ",";
}

/** The file's bytes as text (UTF-8; a byte-order mark is dropped), refused past the size limit. */
export function decodeFile(bytes: ArrayBuffer): string {
  if (bytes.byteLength > MAX_IMPORT_BYTES) throw new ApiError(e.IMPORT_TOO_LARGE);
  return new TextDecoder("utf-8").decode(bytes);
}

/**
 * Parses with csv-parse (quoted fields, doubled quotes, newlines inside quotes, CRLF), blank lines
 * skipped, rows of any length accepted (a short row's missing cells are empty). A file csv-parse
 * cannot read (an unclosed quote) has no row to plan: `import_empty`.
 */
export function parseFile(kind: ImportKind, text: string): ParsedFile {
  const delimiter = detectDelimiter(text);
  let records: string[][];
  try {
    records = parse(text, { delimiter, bom: true, skip_empty_lines: true, relax_column_count: true, relax_quotes: true }) as string[][];
  } catch {
    throw new ApiError(e.IMPORT_EMPTY, { message: "The file is not readable CSV (an unclosed quote?)." });
  }
  const [header, ...data] = records.filter((record) => record.some((cell) => cell.trim() !== ""));
  if (!header || data.length === 0) throw new ApiError(e.IMPORT_EMPTY);
  if (data.length > MAX_IMPORT_ROWS) throw new ApiError(e.IMPORT_TOO_LARGE);
  const wanted = [...COLUMNS[kind].required, ...COLUMNS[kind].optional];
  const positions = new Map<Column, number>();
  header.forEach((cell, index) => {
    const name = cell.trim().toLowerCase();
    const column = wanted.find((candidate) => ALIASES[candidate].includes(name));
    if (column && !positions.has(column)) positions.set(column, index);
  });
  const missing = COLUMNS[kind].required.filter((column) => !positions.has(column));
  if (missing.length > 0) {
    throw new ApiError(e.IMPORT_MISSING_COLUMNS, {
      message: `Missing columns: ${missing.join(", ")}.`,
      details: missing.map((column) => ({ path: column, message: `no column ${ALIASES[column].join(" / ")}` })),
    });
  }
  const rows = data.map((raw) => {
    const values: Partial<Record<Column, string>> = {};
    for (const [column, index] of positions) values[column] = (raw[index] ?? "").trim();
    return { raw, values };
  });
  return { delimiter, header, rows };
}
