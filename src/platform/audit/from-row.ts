import { is, SQL, sql, type SQLWrapper } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { decimalTextSql } from "../../core/db/decimal";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";
import { actorColumns, refuseSecretFields } from "./write";

/**
 * Audit entries whose `changes` are read from the rows inside the batch (docs/decisions/audit.md,
 * "Content actions"): a value the caller cannot know without another round trip (the row before a
 * conditional UPDATE, the score a re-settle computes) is an SQL expression evaluated by the
 * entry's own INSERT … SELECT, and unchanged fields are dropped in SQL as `changedFields` drops
 * them in JS. One encoder (`rowChangesSql`) and one writer (`auditFromRows`) for every such entry.
 */

/** One side of a change: a plain value, or an SQL expression yielding a JSON value (`rowValue`, `rowBoolean`, `jsonIso`, …). */
export type RowSide = unknown;

/** `[before, after]` of one field, either side a plain value or an SQL JSON value. */
export type RowChange = [before: RowSide, after: RowSide];

/** An SQL scalar (text, number or null) as it stands. */
export function rowValue(expression: SQL): SQL {
  return sql`(${expression})`;
}

/** JSON text (an array or object built by `json_group_array` and the like, `'null'`) as the JSON value it holds. */
export function rowJson(expression: SQL): SQL {
  return sql`json((${expression}))`;
}

/** An SQLite 0/1 (or null) as the API's boolean. */
export function rowBoolean(expression: SQLWrapper): SQL {
  return sql`json(CASE WHEN (${expression}) IS NULL THEN 'null' WHEN (${expression}) THEN 'true' ELSE 'false' END)`;
}

/** Integer hundredths (or null) as the API's decimal string. */
export function rowDecimal(expression: SQL): SQL {
  const value = sql`(${expression})`;
  return sql`(CASE WHEN ${value} IS NULL THEN NULL ELSE ${decimalTextSql(value)} END)`;
}

/** A text or number column as it stands (NULL as `null`). */
export const jsonValue = (column: SQLWrapper) => sql`json(json_quote(${column}))`;

/** A boolean column (SQLite stores 0/1) as `true`/`false` (NULL as `null`). */
export const jsonBool = (column: SQLWrapper) => rowBoolean(column);

/** A millisecond timestamp column as the API's ISO 8601 string (NULL as `null`). */
export const jsonIso = (column: SQLWrapper) => sql`json(json_quote(strftime('%Y-%m-%dT%H:%M:%fZ', ${column} / 1000.0, 'unixepoch')))`;

function sideSql(side: RowSide): SQL {
  return is(side, SQL) ? side : sql`json(${JSON.stringify(side ?? null)})`;
}

/**
 * `{field: [before, after]}` as one SQL expression, keeping the fields whose two sides differ.
 * The pairs are built at the level of `json_object` because a value loses its JSON subtype when it
 * crosses a subquery boundary (a boolean would turn into the text "true").
 */
export function rowChangesSql(changes: Record<string, RowChange>): SQL {
  refuseSecretFields(Object.keys(changes));
  const pairs = Object.entries(changes).map(([field, [before, after]]) => sql`${field}, json_array(${sideSql(before)}, ${sideSql(after)})`);
  if (pairs.length === 0) return sql`'{}'`;
  return sql`(SELECT COALESCE(json_group_object(j.key, json(j.value)), '{}')
    FROM json_each(json_object(${sql.join(pairs, sql`, `)})) j
    WHERE json_type(j.value, '$[0]') IS NOT json_type(j.value, '$[1]') OR json_extract(j.value, '$[0]') IS NOT json_extract(j.value, '$[1]'))`;
}

interface RowAuditBase {
  action: string;
  targetType: string;
  /** The target's id: a value, or an SQL expression over the row (`u.id`) or reading it. */
  targetId: string | SQL | null;
  summary: string | SQL;
  changes: Record<string, RowChange>;
}

export type RowAuditInput = RowAuditBase &
  (
    | {
        /**
         * `<table> <alias> WHERE …`: the rows the change is about, with the change's own condition,
         * read by the INSERT before the change's statement runs (so place the entry just ahead of
         * it). One entry per row; none when no row matches (a refused change).
         */
        rows: SQL;
        /** Write the entry even when every field is unchanged (an event rather than an edit: a revoke, a deletion). */
        always?: boolean;
      }
    | {
        /** One entry, written only when this holds inside the batch: the condition of the change it records. */
        when: SQL;
        /** Must be set: an entry of this kind records an event, written even when no field changed. */
        always: true;
      }
  );

/**
 * The audit entries of a change as one statement for the change's own batch (no read ahead of
 * it), values read in the batch: `INSERT … SELECT` over `rows` (or one row when `when` holds),
 * computing `changes` in SQL and, unless `always`, writing nothing for a row where no field would
 * change, so a repeated idempotent request leaves no entry. Put it before the change's statement
 * to read the row before, or after it to read the row after. Ids: a UUIDv7 of this moment whose
 * last 48 bits are random per row, so a set-based change (a bulk deactivation) gets one entry per
 * row in one statement.
 */
export function auditFromRows(ctx: SchoolCtx<SchoolActor>, input: RowAuditInput): BatchItem {
  const diff = rowChangesSql(input.changes);
  const actor = actorColumns(ctx.actor);
  const now = ctx.clock.now();
  const from = "rows" in input ? input.rows : sql`(SELECT 1) one WHERE ${input.when}`;
  return batchable(
    ctx,
    sql`INSERT INTO audit_entries (id, tenant_id, at, actor_id, actor_role, actor_name, actor_job, action, target_type, target_id, summary, changes, request_id)
      SELECT substr(${uuidv7(now)}, 1, 24) || lower(hex(randomblob(6))), ${ctx.tenantId}, ${now}, ${actor.actorId}, ${actor.actorRole},
        ${actor.actorName}, ${actor.actorJob}, ${input.action}, ${input.targetType}, d.target_id, d.summary, d.changes, ${ctx.requestId ?? null}
      FROM (SELECT ${input.targetId} AS target_id, ${input.summary} AS summary, ${diff} AS changes FROM ${from}) d
      WHERE ${input.always ? sql`1` : sql`d.changes <> '{}'`}`,
  );
}
