import { sql, type SQL } from "drizzle-orm";
import { insertWhere, type BatchItem } from "../../core/db/batch";
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
