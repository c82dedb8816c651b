import { and, eq, getTableColumns, getTableName, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { auditEntries, mediaAssets } from "../../db/schema";
import { inSchool } from "../../core/db/conditions";
import { isUserReferenceColumn, PERSONAL_DATA, PERSONAL_FILES } from "../users/personal-data";

/**
 * Where a person's data is, for the export (05 section 7;
 * docs/decisions/data-export.md, "Sources from the registry"). Table-driven from the personal-data registry: every table whose rows a
 * permanent deletion removes with the person (`delete` rules) is the person's own and is read
 * whole, plus the audit entries about them, the media rows of their own files and the profile.
 * A table the registry only `clear`s (shared content the person authored) is not theirs and is
 * named in NOT_EXPORTED with the reason, so the schema check knows it was not forgotten.
 */
export interface ExportSource {
  /** The table's SQL name: the key of its rows in the document and its entry in `sources`. */
  name: string;
  table: SQLiteTable;
  /** The person's rows of this table in this school (the tenant condition included). */
  where: (tenantId: string, userId: string) => SQL;
}

/** Every school table carries `tenant_id`; the export's conditions need it as a drizzle column. */
function tenantColumn(table: SQLiteTable): SQLiteColumn {
  const column = (getTableColumns(table) as Record<string, SQLiteColumn>).tenantId;
  if (!column) throw new Error(`data export: ${getTableName(table)} has no tenant_id`);
  return column;
}

const schoolOf = (table: SQLiteTable) => ({ tenantId: tenantColumn(table) });

/** One source per table with `delete` rules: the person's rows under any of its columns. */
function registrySources(): ExportSource[] {
  const byTable = new Map<SQLiteTable, SQLiteColumn[]>();
  for (const entry of PERSONAL_DATA) {
    if (entry.action !== "delete") continue;
    byTable.set(entry.table, [...(byTable.get(entry.table) ?? []), entry.column]);
  }
  return [...byTable].map(([table, columns]) => ({
    name: getTableName(table),
    table,
    where: (tenantId, userId) => and(inSchool(schoolOf(table), tenantId), or(...columns.map((column) => eq(column, userId))))!,
  }));
}

/** The media rows of the person's own files (avatar, submission files): what they are, not the bytes. */
const ownFiles: ExportSource = {
  name: getTableName(mediaAssets),
  table: mediaAssets,
  where: (tenantId, userId) =>
    and(
      inSchool(mediaAssets, tenantId),
      or(
        ...PERSONAL_FILES.map((entry) =>
          // The owning table's rows of this school and person; its column names the asset.
          sql`${mediaAssets.id} IN (SELECT ${entry.asset} FROM ${entry.table} WHERE ${inSchool({ tenantId: entry.school }, tenantId)} AND ${entry.owner} = ${userId})`,
        ),
      ),
    )!,
};

/** "Audit entries about them" (05 section 7): entries whose target is the person's account. */
const auditAboutThem: ExportSource = {
  name: getTableName(auditEntries),
  table: auditEntries,
  where: (tenantId, userId) => and(inSchool(auditEntries, tenantId), eq(auditEntries.targetType, "user"), eq(auditEntries.targetId, userId))!,
};

/** The profile is read through the users area's own presenter (the API's user object). */
export const PROFILE_SOURCE = "users";

export const EXPORT_SOURCES: readonly ExportSource[] = [...registrySources(), auditAboutThem, ownFiles];

/** Every table the document is read from, as it lists them in `sources`. */
export function exportedTables(): string[] {
  return [PROFILE_SOURCE, ...EXPORT_SOURCES.map((source) => source.name)].sort();
}

const AUTHORED = "shared school content the person only authored or changed; the registry clears the reference, the rows are not theirs";

/**
 * Tables with a user column that the export does not read, each with why. A new table with a user
 * column must be exported (a `delete` rule in src/platform/users/personal-data.ts) or named here.
 */
export const NOT_EXPORTED: Readonly<Record<string, string>> = {
  courses: AUTHORED,
  groups: AUTHORED,
  course_group_enrollments: AUTHORED,
  learning_paths: AUTHORED,
  quizzes: AUTHORED,
  exams: AUTHORED,
  assignments: AUTHORED,
  notification_campaigns: AUTHORED,
  notification_event_settings: AUTHORED,
  certificate_rules: AUTHORED,
  quiz_regrades: "a staff member's regrade of a quiz question, the school's record of a change to its quiz; the registry clears who asked, and each student's re-scored attempt is exported from quiz_regrade_items",
  data_exports: "the exports themselves: their file is this document, and a row only says when one was asked for",
};

/**
 * The schema check (test/data-export/sources.test.ts reads the live schema): every table with a
 * user-reference column is exported or named in NOT_EXPORTED with a reason. Returns one message
 * per forgotten table, naming it and what to do.
 */
export function exportCoverageGaps(live: readonly { table: string; columns: readonly string[] }[]): string[] {
  const exported = new Set(exportedTables());
  const gaps: string[] = [];
  for (const { table, columns } of live) {
    const userColumns = columns.filter(isUserReferenceColumn);
    if (userColumns.length === 0 || exported.has(table)) continue;
    if (NOT_EXPORTED[table]?.trim()) continue;
    gaps.push(
      `${table} (${userColumns.join(", ")}): export it (a "delete" rule in PERSONAL_DATA, src/platform/users/personal-data.ts) ` +
        `or name it in NOT_EXPORTED (src/platform/data-export/sources.ts) with the reason it is not the person's data`,
    );
  }
  return gaps;
}
