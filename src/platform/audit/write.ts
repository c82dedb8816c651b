import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { batchable, insertWhere, type BatchItem } from "../../core/db/batch";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";
import { auditEntries } from "../../db/schema";

/** `{field: [before, after]}` of one audit entry (05 section 6). */
export type AuditChanges = Record<string, [unknown, unknown]>;

export interface AuditInput {
  /** Dotted verb, area first: `user.updated`, `device.blocked` (the catalogue: docs/decisions/audit.md). */
  action: string;
  targetType: string;
  targetId: string | null;
  /** One line for a person reading the log. */
  summary: string;
  changes?: AuditChanges;
  /**
   * Written only when this holds, evaluated inside the batch: the condition of the change it
   * records (e.g. the row exists and is live), so a refused change leaves no entry.
   */
  when?: SQL;
  /**
   * Who acted when the context's actor is not the person (a sign-in step runs as a system job while
   * the student replaces their own device). Default: the context's actor.
   */
  actor?: { userId: string; role: string; name: string };
}

/**
 * Field names that would carry a secret (`password`, `new_password`, `token_hash`, `refresh_token`, `secret`): an entry
 * naming one is a programming error, refused before any write. Matched as the name's last word, so a
 * setting about secrets (`revoke_on_password_change`) is not one.
 */
const SECRET_FIELD = /(^|_)(password|hash|token|secret|otp|private_key|whsec)s?$/i;

/** Keeps the fields whose value changed and refuses secret-bearing ones. */
/** Throws on a field name that may carry a secret: every way of writing `changes` checks its names here. */
export function refuseSecretFields(fields: Iterable<string>): void {
  for (const field of fields) if (SECRET_FIELD.test(field)) throw new Error(`audit: the field "${field}" may carry a secret`);
}

export function changedFields(changes: AuditChanges): AuditChanges {
  refuseSecretFields(Object.keys(changes));
  const kept: AuditChanges = {};
  for (const [field, [before, after]] of Object.entries(changes)) {
    if (JSON.stringify(before ?? null) !== JSON.stringify(after ?? null)) kept[field] = [before ?? null, after ?? null];
  }
  return kept;
}

/** The before/after pairs of the named fields of two row snapshots (plain objects keyed by the API's field names). */
export function diffRows(before: Record<string, unknown>, after: Record<string, unknown>, fields: readonly string[]): AuditChanges {
  return changedFields(Object.fromEntries(fields.map((field) => [field, [before[field], after[field]]])));
}

export function actorColumns(actor: SchoolActor) {
  if (actor.role === "system") return { actorId: null, actorRole: null, actorName: null, actorJob: actor.job };
  return { actorId: actor.userId, actorRole: actor.role, actorName: `${actor.firstName} ${actor.lastName}`.trim(), actorJob: null };
}

/**
 * The audit entry of a staff change as a statement for the change's own batch (no extra round
 * trip). `INSERT … SELECT … WHERE when`, so the entry exists only if the change's condition held
 * when the batch ran; put it where that condition is still the one the change saw (usually just
 * before the change's own statement).
 */
export function auditEntry(ctx: SchoolCtx<SchoolActor>, input: AuditInput): BatchItem {
  return insertWhere(
    ctx,
    auditEntries,
    {
      id: uuidv7(ctx.clock.now()),
      tenantId: ctx.tenantId,
      at: ctx.clock.now(),
      ...(input.actor
        ? { actorId: input.actor.userId, actorRole: input.actor.role, actorName: input.actor.name, actorJob: null }
        : actorColumns(ctx.actor)),
      action: input.action,
      targetType: input.targetType,
      targetId: input.targetId,
      summary: input.summary,
      changes: changedFields(input.changes ?? {}),
      requestId: ctx.requestId,
    },
    input.when ?? sql`1 = 1`,
  );
}

/**
 * A before/after pair whose before is read from the row by the INSERT itself, as JSON text
 * (`jsonValue`, `jsonBool`, `jsonIso`); after is a plain value.
 */
export type RowChange = [before: SQL, after: unknown];

export interface AuditFromRowsInput {
  action: string;
  targetType: string;
  /**
   * `<table> <alias> WHERE …`: the rows the change is about, with the change's own condition, read
   * by the INSERT before the change's statement runs (so place the entry just ahead of it). One
   * entry per row; none when no row matches (a refused change).
   */
  rows: SQL;
  /** The target's id, over the row (`u.id`). */
  targetId: SQL;
  summary: string | SQL;
  /** `{field: [before as JSON text over the row, after]}`; fields whose two sides are equal are dropped. */
  changes: Record<string, RowChange>;
  /** Write the entry even when every field is unchanged (an event rather than an edit: a revoke, a deletion). */
  always?: boolean;
}

/** A text or number column as JSON text (NULL as `null`). */
export const jsonValue = (column: SQLWrapper) => sql`json_quote(${column})`;

/** A boolean column (SQLite stores 0/1) as JSON `true`/`false` (NULL as `null`). */
export const jsonBool = (column: SQLWrapper) => sql`(CASE WHEN ${column} IS NULL THEN 'null' WHEN ${column} THEN 'true' ELSE 'false' END)`;

/** A millisecond timestamp column as the API's ISO 8601 string, as JSON text (NULL as `null`). */
export const jsonIso = (column: SQLWrapper) => sql`json_quote(strftime('%Y-%m-%dT%H:%M:%fZ', ${column} / 1000.0, 'unixepoch'))`;

/**
 * The audit entries of a change whose before-values live in the rows it changes, as one statement
 * for the change's own batch (no read ahead of it): `INSERT … SELECT` over those rows, computing
 * `changes` in SQL and writing nothing for a row where no field would change, so a repeated
 * idempotent request leaves no entry. Ids: a UUIDv7 of this moment whose last 48 bits are random
 * per row, so a set-based change (a bulk deactivation) gets one entry per row in one statement.
 */
export function auditFromRows(ctx: SchoolCtx<SchoolActor>, input: AuditFromRowsInput): BatchItem {
  refuseSecretFields(Object.keys(input.changes));
  const pairs = Object.entries(input.changes).map(([field, [before, after]]) => sql`${field}, json_array(json(${before}), json(${JSON.stringify(after ?? null)}))`);
  const diff = pairs.length
    ? sql`(SELECT coalesce(json_group_object(p.key, json(p.value)), '{}') FROM json_each(json_object(${sql.join(pairs, sql`, `)})) p
        WHERE (p.value -> 0) IS NOT (p.value -> 1))`
    : sql`'{}'`;
  const actor = actorColumns(ctx.actor);
  const now = ctx.clock.now();
  return batchable(
    ctx,
    sql`INSERT INTO audit_entries (id, tenant_id, at, actor_id, actor_role, actor_name, actor_job, action, target_type, target_id, summary, changes, request_id)
      SELECT substr(${uuidv7(now)}, 1, 24) || lower(hex(randomblob(6))), ${ctx.tenantId}, ${now}, ${actor.actorId}, ${actor.actorRole},
        ${actor.actorName}, ${actor.actorJob}, ${input.action}, ${input.targetType}, d.target_id, d.summary, d.changes, ${ctx.requestId ?? null}
      FROM (SELECT ${input.targetId} AS target_id, ${input.summary} AS summary, ${diff} AS changes FROM ${input.rows}) d
      ${input.always ? sql`` : sql`WHERE d.changes <> '{}'`}`,
  );
}
