import { is, SQL, sql } from "drizzle-orm";
import { insertWhere, type BatchItem } from "../../core/db/batch";
import { decimalTextSql } from "../../core/db/decimal";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";
import { auditEntries } from "../../db/schema";
import { actorColumns, refuseSecretFields } from "./write";

/**
 * Audit entries whose `changes` are read from the rows inside the batch (docs/decisions/audit.md,
 * "Content actions"): a value the caller cannot know without another round trip (the row before a
 * conditional UPDATE, the score a re-settle computes) is an SQL expression evaluated by the
 * entry's own INSERT … SELECT, and unchanged fields are dropped in SQL as `changedFields` drops
 * them in JS.
 */

/** One side of a change: a plain value, or an SQL expression yielding a JSON value (`rowValue`, `rowBoolean`, `rowDecimal`). */
export type RowSide = unknown;

/** An SQL scalar (text, number or null) as it stands. */
export function rowValue(expression: SQL): SQL {
  return sql`(${expression})`;
}

/** JSON text (an array or object built by `json_group_array` and the like) as the JSON value it holds. */
export function rowJson(expression: SQL): SQL {
  return sql`json((${expression}))`;
}

/** An SQLite 0/1 (or null) as the API's boolean. */
export function rowBoolean(expression: SQL): SQL {
  return sql`json(CASE WHEN (${expression}) IS NULL THEN 'null' WHEN (${expression}) THEN 'true' ELSE 'false' END)`;
}

/** Integer hundredths (or null) as the API's decimal string. */
export function rowDecimal(expression: SQL): SQL {
  const value = sql`(${expression})`;
  return sql`(CASE WHEN ${value} IS NULL THEN NULL ELSE ${decimalTextSql(value)} END)`;
}

function sideSql(side: RowSide): SQL {
  return is(side, SQL) ? side : sql`json(${JSON.stringify(side ?? null)})`;
}

/**
 * `{field: [before, after]}` as one SQL expression, keeping the fields whose two sides differ.
 * The pairs are built at the level of `json_object` because a value loses its JSON subtype when it
 * crosses a subquery boundary (a boolean would turn into the text "true").
 */
export function rowChangesSql(changes: Record<string, [RowSide, RowSide]>): SQL {
  refuseSecretFields(Object.keys(changes));
  const pairs = Object.entries(changes).map(([field, [before, after]]) => sql`${field}, json_array(${sideSql(before)}, ${sideSql(after)})`);
  if (pairs.length === 0) return sql`'{}'`;
  return sql`(SELECT COALESCE(json_group_object(j.key, json(j.value)), '{}')
    FROM json_each(json_object(${sql.join(pairs, sql`, `)})) j
    WHERE json_type(j.value, '$[0]') IS NOT json_type(j.value, '$[1]') OR json_extract(j.value, '$[0]') IS NOT json_extract(j.value, '$[1]'))`;
}

export interface RowAuditInput {
  action: string;
  targetType: string;
  /** The target's id, or an SQL expression reading it (e.g. the enrollment of a course and a student). */
  targetId: string | SQL | null;
  summary: string | SQL;
  changes: Record<string, [RowSide, RowSide]>;
  /** Written only when this holds inside the batch: the condition of the change it records. */
  when: SQL;
}

/**
 * The audit entry as a statement for the change's own batch, like `auditEntry`, with values read
 * in the batch. Put it before the change's statement to read the row before (with the change's
 * own condition as `when`), or after it to read the row after.
 */
export function auditEntryFromRow(ctx: SchoolCtx<SchoolActor>, input: RowAuditInput): BatchItem {
  const now = ctx.clock.now();
  return insertWhere(
    ctx,
    auditEntries,
    {
      id: uuidv7(now),
      tenantId: ctx.tenantId,
      at: now,
      ...actorColumns(ctx.actor),
      action: input.action,
      targetType: input.targetType,
      targetId: input.targetId,
      summary: input.summary,
      changes: rowChangesSql(input.changes),
      requestId: ctx.requestId,
    },
    input.when,
  );
}
