import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { formatHundredths } from "../../core/db/decimal";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { isoOrNull } from "../../core/lib/clock";
import { auditEntry, diffRows } from "../../platform/audit/write";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { accommodationsErrors as e } from "./errors";
import type { AccommodationBody } from "./schemas";

/**
 * Accommodation profiles (docs/decisions/accommodations.md). A read is one statement: the user
 * (live, of the school, within a restricted curator's scope) with their profile, if any. A change
 * is that read and one batch: the audit entry and the write, both conditional on the user still
 * being a live student, then the profile read back.
 */

interface ProfileRow {
  role: string;
  time_multiplier_hundredths: number | null;
  extra_time_seconds: number | null;
  extra_attempts: number | null;
  note: string | null;
  updated_at: number | null;
  updated_by: string | null;
}

const FIELDS = ["time_multiplier", "extra_time_seconds", "extra_attempts", "note"] as const;

function userWithProfileSql(ctx: SchoolCtx, userId: string) {
  const scope = scopeCondition(sql`u.id`, restrictedScope(ctx));
  return batchable(
    ctx,
    sql`SELECT u.role, ac.time_multiplier_hundredths, ac.extra_time_seconds, ac.extra_attempts, ac.note, ac.updated_at, ac.updated_by
      FROM users u LEFT JOIN accommodations ac ON ${inSchool("ac", ctx.tenantId)} AND ac.user_id = u.id
      WHERE u.id = ${userId} AND ${liveInSchool("u", ctx.tenantId)} ${scope ? sql`AND ${scope}` : sql``}`,
  );
}

/** The profile as the API shows it; no row is the neutral profile. */
function present(userId: string, row: Omit<ProfileRow, "role"> | undefined) {
  const has = row !== undefined && row.time_multiplier_hundredths !== null;
  return {
    user_id: userId,
    time_multiplier: formatHundredths(has ? row.time_multiplier_hundredths! : 100),
    extra_time_seconds: has ? row.extra_time_seconds! : 0,
    extra_attempts: has ? row.extra_attempts! : 0,
    note: has ? row.note : null,
    updated_at: has ? isoOrNull(row.updated_at) : null,
    updated_by: has ? row.updated_by : null,
  };
}

export type AccommodationView = ReturnType<typeof present>;

async function readUser(ctx: SchoolCtx, userId: string): Promise<ProfileRow> {
  const [row] = rowsOf<ProfileRow>((await runBatch(ctx, [userWithProfileSql(ctx, userId)]))[0]);
  if (!row) throw new ApiError(e.USER_NOT_FOUND);
  return row;
}

/** The user is still a live student of the school when the batch runs. */
function liveStudent(ctx: SchoolCtx, userId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM users su WHERE su.id = ${userId} AND ${liveInSchool("su", ctx.tenantId)} AND su.role = 'student')`;
}

/** GET /t/users/:id/accommodation (staff have none: the neutral profile). */
export async function getAccommodation(ctx: SchoolCtx, input: { userId: string }): Promise<AccommodationView> {
  return present(input.userId, await readUser(ctx, input.userId));
}

/** Multiplier hundredths of the body's decimal (the schema checked 1.00-4.00 with at most two decimals). */
function multiplierHundredths(value: string | number): number {
  return Math.round(Number(value) * 100);
}

/** PUT /t/users/:id/accommodation: creates or replaces the profile. */
export async function putAccommodation(ctx: SchoolCtx, input: { userId: string; body: AccommodationBody }): Promise<AccommodationView> {
  const { userId, body } = input;
  const before = await readUser(ctx, userId);
  if (before.role !== "student") throw new ApiError(e.NOT_A_STUDENT);
  const now = ctx.clock.now();
  const multiplier = multiplierHundredths(body.time_multiplier);
  const shown = present(userId, before);
  const after = { time_multiplier: formatHundredths(multiplier), extra_time_seconds: body.extra_time_seconds, extra_attempts: body.extra_attempts, note: body.note };
  const changes = diffRows(before.time_multiplier_hundredths === null ? { ...shown, note: null } : shown, after, FIELDS);
  const created = before.time_multiplier_hundredths === null;
  const live = liveStudent(ctx, userId);
  const audit =
    created || Object.keys(changes).length > 0
      ? [auditEntry(ctx, { action: "accommodation.set", targetType: "accommodation", targetId: userId, summary: "Accommodation profile set", changes, when: live })]
      : [];
  const results = await runBatch(ctx, [
    ...audit,
    batchable(
      ctx,
      sql`INSERT INTO accommodations (tenant_id, user_id, time_multiplier_hundredths, extra_time_seconds, extra_attempts, note, updated_by, updated_at)
        SELECT ${ctx.tenantId}, ${userId}, ${multiplier}, ${body.extra_time_seconds}, ${body.extra_attempts}, ${body.note}, ${ctx.actor.userId}, ${now}
        WHERE ${live}
        ON CONFLICT (tenant_id, user_id) DO UPDATE SET time_multiplier_hundredths = excluded.time_multiplier_hundredths,
          extra_time_seconds = excluded.extra_time_seconds, extra_attempts = excluded.extra_attempts, note = excluded.note,
          updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
    ),
    userWithProfileSql(ctx, userId),
  ]);
  const [row] = rowsOf<ProfileRow>(results[results.length - 1]);
  // Deleted or made staff between the read and the write: the write did not happen.
  if (!row) throw new ApiError(e.USER_NOT_FOUND);
  if (row.role !== "student") throw new ApiError(e.NOT_A_STUDENT);
  return present(userId, row);
}

/** DELETE /t/users/:id/accommodation: the neutral profile applies again (nothing to remove is still 204). */
export async function deleteAccommodation(ctx: SchoolCtx, input: { userId: string }): Promise<void> {
  const { userId } = input;
  const before = await readUser(ctx, userId);
  if (before.time_multiplier_hundredths === null) return;
  const shown = present(userId, before);
  const neutral = { time_multiplier: "1.00", extra_time_seconds: 0, extra_attempts: 0, note: null };
  const exists = sql`EXISTS (SELECT 1 FROM accommodations da WHERE ${inSchool("da", ctx.tenantId)} AND da.user_id = ${userId})`;
  await runBatch(ctx, [
    auditEntry(ctx, {
      action: "accommodation.removed",
      targetType: "accommodation",
      targetId: userId,
      summary: "Accommodation profile removed",
      changes: diffRows(shown, neutral, FIELDS),
      when: exists,
    }),
    batchable(ctx, sql`DELETE FROM accommodations WHERE ${inSchool(ctx.tenantId)} AND user_id = ${userId}`),
  ]);
}
