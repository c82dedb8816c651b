import { and, asc, count, desc, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { payments, tariffs, tenants } from "../../db/schema";
import type { Actor, ServiceContext, SchoolCtx, TenantSummary } from "../../core/http/context";
import { auditEntry, diffRows, type AuditInput } from "../audit/write";
import { controlDb } from "../../core/db/client";
import { runBatch } from "../../core/db/batch";
import { log } from "../../core/lib/log";
import { forSchool, systemActor } from "../../core/school";
import { ApiError } from "../../core/http/errors";
import { daysRemaining, iso, isoOrNull } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { billingOpen, dispatchQueued, enqueue, timestamp } from "../notifications/enqueue";
import { liveTenant, schoolSummary, schoolSummaryColumns } from "../schools/lookup";
import { billingErrors } from "./errors";
import type { ActivateInput, ExtendBody, PaymentsQuery, TenantsBillingQuery } from "./schemas";
import { CURRENCY, effectivePlanState, effectivePlanStateSql, newExpirySql } from "./state";
import { tariffRecord } from "./tariff-service";
import { containsText, inSchool } from "../../core/db/conditions";

/** The dossier embeds the latest payments; the rest are paged by GET /admin/tenants/:id/payments. */
const DOSSIER_HISTORY = 50;

type PaymentRow = typeof payments.$inferSelect;

function paymentRecord(row: PaymentRow) {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    tariff_id: row.tariffId,
    tariff_title_snapshot: row.tariffTitleSnapshot,
    amount_cents: row.amountCents,
    currency: row.currency,
    days: row.days,
    method: row.method,
    reference: row.reference,
    notes: row.notes,
    applied_expires_at: iso(row.appliedExpiresAt),
    created_by_user_id: row.createdByUserId,
    created_at: iso(row.createdAt),
  };
}

/** A payment as the school sees it: the platform's internal notes and operator stay with the platform. */
function schoolPaymentRecord(payment: ReturnType<typeof paymentRecord>) {
  const { notes: _notes, created_by_user_id: _operator, ...shown } = payment;
  return shown;
}

const newestFirst = [desc(payments.createdAt), desc(payments.id)];

// ---------------------------------------------------------------------------------------------
// Reads

/** GET /admin/tenants: live schools with their billing state; filters see the effective plan state. */
export async function listTenantsBilling(ctx: ServiceContext, query: z.infer<typeof TenantsBillingQuery>) {
  const now = ctx.clock.now();
  const planState = effectivePlanStateSql(now);
  const conditions: (SQL | undefined)[] = [isNull(tenants.deletedAt)];
  if (query.plan_state) conditions.push(sql`${planState} = ${query.plan_state}`);
  if (query.search) {
    conditions.push(or(containsText(tenants.subdomain, query.search), containsText(tenants.title, query.search)));
  }
  const where = and(...conditions);
  const direction = query.sort_dir === "desc" ? desc : asc;
  const order: SQL[] =
    query.sort_by === "title"
      ? [direction(sql`${tenants.title} COLLATE NOCASE`)]
      : query.sort_by === "created_at"
        ? [direction(tenants.createdAt)]
        : // A school without an expiry never ends: last in ascending order, first in descending.
          [direction(sql`${tenants.expiresAt} IS NULL`), direction(tenants.expiresAt)];

  const [rows, totals] = await ctx.db.batch([
    ctx.db
      .select({
        id: tenants.id,
        status: tenants.status,
        planState,
        expiresAt: tenants.expiresAt,
        timezone: tenants.timezone,
        title: tenants.title,
        subdomain: tenants.subdomain,
        suspendedManually: tenants.suspendedManually,
        currentTariffId: tenants.currentTariffId,
        createdAt: tenants.createdAt,
      })
      .from(tenants)
      .where(where)
      .orderBy(...order, asc(tenants.id))
      .limit(query.limit)
      .offset(query.offset),
    ctx.db.select({ total: count() }).from(tenants).where(where),
  ]);
  return {
    items: rows.map((row) => ({
      tenant_id: row.id,
      tenant_status: row.status,
      plan_state: row.planState,
      expires_at: isoOrNull(row.expiresAt),
      days_remaining: daysRemaining(row.expiresAt, now, row.timezone),
      title: row.title,
      subdomain: row.subdomain,
      suspended_manually: row.suspendedManually,
      current_tariff_id: row.currentTariffId,
      created_at: iso(row.createdAt),
    })),
    total: totals[0]?.total ?? 0,
    limit: query.limit,
    offset: query.offset,
  };
}

/** GET /admin/tenants/:id (and, through `ownBillingDossier`, GET /t/billing/me): state, current tariff and recent payments, one round trip. */
export async function billingDossier(ctx: ServiceContext, input: { tenantId: string }) {
  // Separate selects, not a join: D1 batches return rows keyed by column name, so joined `id`s would collide.
  const [schools, currentTariffs, history] = await ctx.db.batch([
    ctx.db.select().from(tenants).where(liveTenant(input.tenantId)).limit(1),
    ctx.db
      .select()
      .from(tariffs)
      .where(
        and(
          eq(tariffs.id, sql`(SELECT ${tenants.currentTariffId} FROM ${tenants} WHERE ${tenants.id} = ${input.tenantId})`),
          isNull(tariffs.deletedAt),
        ),
      )
      .limit(1),
    ctx.db
      .select()
      .from(payments)
      .where(inSchool(payments, input.tenantId))
      .orderBy(...newestFirst)
      .limit(DOSSIER_HISTORY),
  ]);
  const tenant = schools[0];
  if (!tenant) throw new ApiError(billingErrors.TENANT_NOT_FOUND);
  const tariff = currentTariffs[0];
  const now = ctx.clock.now();
  return {
    tenant_id: tenant.id,
    tenant_status: tenant.status,
    plan_state: effectivePlanState(tenant, now),
    expires_at: isoOrNull(tenant.expiresAt),
    days_remaining: daysRemaining(tenant.expiresAt, now, tenant.timezone),
    suspended_manually: tenant.suspendedManually,
    current_tariff: tariff ? tariffRecord(tariff) : null,
    payment_history: history.map(paymentRecord),
  };
}

/** GET /t/billing/me: the school's own dossier, each payment in the school's view. */
export async function ownBillingDossier(ctx: SchoolCtx) {
  // Billing is the control database's, not the shard's the school context points at.
  const dossier = await billingDossier({ ...ctx, db: controlDb(ctx.env) }, { tenantId: ctx.tenantId });
  return { ...dossier, payment_history: dossier.payment_history.map(schoolPaymentRecord) };
}

export async function listPayments(ctx: ServiceContext, input: { tenantId: string; page: z.infer<typeof PaymentsQuery> }) {
  const [schools, rows] = await ctx.db.batch([
    ctx.db.select({ id: tenants.id }).from(tenants).where(liveTenant(input.tenantId)).limit(1),
    ctx.db
      .select()
      .from(payments)
      .where(inSchool(payments, input.tenantId))
      .orderBy(...newestFirst)
      .limit(input.page.limit)
      .offset(input.page.offset),
  ]);
  if (schools.length === 0) throw new ApiError(billingErrors.TENANT_NOT_FOUND);
  return { items: rows.map(paymentRecord), limit: input.page.limit, offset: input.page.offset };
}

// ---------------------------------------------------------------------------------------------
// Writes: each state change and its payment row go in one batch of the control database, the
// payment reading the expiry the UPDATE just wrote, so `applied_expires_at` is exactly the
// school's new expiry. The push to the school's admins follows in the school's shard.

interface Period {
  tariffId: SQL | string | null;
  titleSnapshot: SQL | string | null;
  days: number;
  amountCents: number;
}

interface PaymentMeta {
  actorUserId: string;
  /** The payment's id when the caller needs it in the same batch (its push's dedupe key). */
  paymentId?: string;
  method?: string;
  reference?: string | null;
  notes?: string | null;
}

function paymentFromTenant(ctx: ServiceContext, where: SQL | undefined, period: Period, meta: PaymentMeta) {
  const now = ctx.clock.now();
  return ctx.db
    .insert(payments)
    .select(
      ctx.db
        .select({
          id: sql<string>`${meta.paymentId ?? uuidv7(now)}`.as("id"),
          tenantId: tenants.id,
          tariffId: sql<string | null>`${period.tariffId}`.as("tariff_id"),
          tariffTitleSnapshot: sql<string | null>`${period.titleSnapshot}`.as("tariff_title_snapshot"),
          amountCents: sql<number>`${period.amountCents}`.as("amount_cents"),
          currency: sql<string>`${CURRENCY}`.as("currency"),
          days: sql<number>`${period.days}`.as("days"),
          method: sql<string>`${meta.method ?? "cash"}`.as("method"),
          reference: sql<string | null>`${meta.reference ?? null}`.as("reference"),
          notes: sql<string | null>`${meta.notes ?? null}`.as("notes"),
          appliedExpiresAt: tenants.expiresAt,
          createdByUserId: sql<string>`${meta.actorUserId}`.as("created_by_user_id"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(tenants)
        .where(where),
    )
    .returning();
}

/** The tariff form's checks, in the spec's order: the school, then the tariff, then its state. */
async function checkActivationTargets(ctx: ServiceContext, tenantId: string, tariffId: string) {
  const [schools, found] = await ctx.db.batch([
    ctx.db.select({ id: tenants.id }).from(tenants).where(liveTenant(tenantId)).limit(1),
    ctx.db
      .select()
      .from(tariffs)
      .where(and(eq(tariffs.id, tariffId), isNull(tariffs.deletedAt)))
      .limit(1),
  ]);
  if (schools.length === 0) throw new ApiError(billingErrors.TENANT_NOT_FOUND);
  const tariff = found[0];
  if (!tariff) throw new ApiError(billingErrors.TARIFF_NOT_FOUND);
  if (!tariff.isActive) throw new ApiError(billingErrors.TARIFF_INACTIVE);
  return tariff;
}

/**
 * POST /admin/tenants/:id/activate → `paid`. Lifts any suspension (manual included), makes a
 * `pending` school `active` (the superadmin vouches for it) and records the payment.
 */
export async function activate(ctx: ServiceContext, input: { tenantId: string; actorUserId: string; body: ActivateInput; by?: Actor }) {
  const { body } = input;
  const now = ctx.clock.now();
  let period: Period & { tariffId: string | null };
  let tariffStillActive: SQL | undefined;
  if (body.tariff_id !== undefined) {
    const tariff = await checkActivationTargets(ctx, input.tenantId, body.tariff_id);
    const periods = body.periods!;
    period = { tariffId: tariff.id, titleSnapshot: tariff.title, days: tariff.durationDays * periods, amountCents: tariff.priceCents * periods };
    // Deactivated between the check and the write: the write does nothing and the check reruns.
    tariffStillActive = sql`EXISTS (SELECT 1 FROM ${tariffs} WHERE ${tariffs.id} = ${tariff.id} AND ${tariffs.isActive} = 1 AND ${tariffs.deletedAt} IS NULL)`;
  } else {
    period = { tariffId: null, titleSnapshot: body.title!, days: body.days!, amountCents: body.amount_cents! };
  }

  const where = and(liveTenant(input.tenantId), tariffStillActive);
  const paymentId = uuidv7(now);
  const [before, updated, inserted] = await ctx.db.batch([
    stateBefore(ctx, input.tenantId),
    ctx.db
      .update(tenants)
      .set({
        planState: "paid",
        status: sql`CASE WHEN ${tenants.status} = 'pending' THEN 'active' ELSE ${tenants.status} END`,
        expiresAt: newExpirySql(now, period.days),
        suspendedManually: false,
        suspendedAt: null,
        suspendReason: null,
        currentTariffId: period.tariffId,
        updatedAt: now,
      })
      .where(where)
      .returning(schoolSummaryColumns),
    paymentFromTenant(ctx, where, period, { ...body, actorUserId: input.actorUserId, paymentId }),
  ]);
  if (!updated[0] || !inserted[0]) {
    if (body.tariff_id !== undefined) await checkActivationTargets(ctx, input.tenantId, body.tariff_id);
    throw new ApiError(billingErrors.TENANT_NOT_FOUND);
  }
  const school = schoolSummary(updated[0]);
  await tellSchoolAdmins(ctx, school, "billing.activated", {
    school_title: school.title,
    tariff_title: period.titleSnapshot as string,
    days: period.days,
    expires_at: timestamp(inserted[0].appliedExpiresAt),
  }, `billing.activated:${school.id}:${paymentId}`, billingEntry("billing.activated", "School activated (payment recorded)", before[0], updated[0], input.by));
  return paymentRecord(inserted[0]);
}

/**
 * POST /admin/tenants/:id/extend: more days on the current tariff (its snapshot is copied from the
 * latest payment). The school ends `paid`, except that a manual suspension stays until lifted.
 */
export async function extend(ctx: ServiceContext, input: { tenantId: string; actorUserId: string; body: z.infer<typeof ExtendBody>; by?: Actor }) {
  const { body } = input;
  const now = ctx.clock.now();
  const latestSnapshot = sql`(SELECT ${payments.tariffTitleSnapshot} FROM ${payments} WHERE ${inSchool(payments, input.tenantId)} ORDER BY ${payments.createdAt} DESC, ${payments.id} DESC LIMIT 1)`;
  const period: Period = { tariffId: sql`${tenants.currentTariffId}`, titleSnapshot: latestSnapshot, days: body.days, amountCents: body.amount_cents ?? 0 };
  const where = liveTenant(input.tenantId);
  const paymentId = uuidv7(now);
  const [before, updated, inserted] = await ctx.db.batch([
    stateBefore(ctx, input.tenantId),
    ctx.db
      .update(tenants)
      .set({
        planState: sql`CASE WHEN ${tenants.suspendedManually} = 1 THEN 'suspended' ELSE 'paid' END`,
        expiresAt: newExpirySql(now, period.days),
        updatedAt: now,
      })
      .where(where)
      .returning(schoolSummaryColumns),
    paymentFromTenant(ctx, where, period, { ...body, actorUserId: input.actorUserId, paymentId }),
  ]);
  if (!updated[0] || !inserted[0]) throw new ApiError(billingErrors.TENANT_NOT_FOUND);
  const school = schoolSummary(updated[0]);
  await tellSchoolAdmins(ctx, school, "billing.extended", {
    school_title: school.title,
    days: period.days,
    expires_at: timestamp(inserted[0].appliedExpiresAt),
  }, `billing.extended:${school.id}:${paymentId}`, billingEntry("billing.extended", "Subscription extended (payment recorded)", before[0], updated[0], input.by));
  return paymentRecord(inserted[0]);
}

/** POST /admin/tenants/:id/suspend: a manual suspension, which also closes GET /t/billing/me. */
export async function suspend(ctx: ServiceContext, input: { tenantId: string; reason?: string | null; by?: Actor }) {
  const now = ctx.clock.now();
  const [before, rows] = await ctx.db.batch([
    // Read in the same batch, ahead of the update: only a school not manually suspended yet is told.
    stateBefore(ctx, input.tenantId),
    ctx.db
      .update(tenants)
      .set({
        planState: "suspended",
        suspendedManually: true,
        // Repeating the call keeps the moment of the original suspension.
        suspendedAt: sql`CASE WHEN ${tenants.suspendedManually} = 1 THEN ${tenants.suspendedAt} ELSE ${now} END`,
        suspendReason: input.reason ?? null,
        updatedAt: now,
      })
      .where(liveTenant(input.tenantId))
      .returning(schoolSummaryColumns),
  ]);
  if (!rows[0]) throw new ApiError(billingErrors.TENANT_NOT_FOUND);
  if (before[0]?.suspendedManually === false) {
    const school = schoolSummary(rows[0]);
    await tellSchoolAdmins(ctx, school, "billing.suspended", { school_title: school.title }, `billing.suspended:${school.id}:${now}`, billingEntry("billing.suspended", "School suspended", before[0], rows[0], input.by));
  }
  return { suspended: true as const };
}

/**
 * POST /admin/tenants/:id/unsuspend lifts a manual suspension and restores what the school had:
 * `paid` if it ever paid, `trial` otherwise; a period that ended meanwhile stays blocked
 * (`suspended`, not manual), so unsuspending never grants free days.
 */
export async function unsuspend(ctx: ServiceContext, input: { tenantId: string; by?: Actor }) {
  const now = ctx.clock.now();
  const [before, lifted, schools] = await ctx.db.batch([
    stateBefore(ctx, input.tenantId),
    ctx.db
      .update(tenants)
      .set({
        planState: sql`CASE
          WHEN ${tenants.expiresAt} IS NOT NULL AND ${tenants.expiresAt} <= ${now} THEN 'suspended'
          WHEN EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.tenantId} = ${tenants.id}) THEN 'paid'
          ELSE 'trial' END`,
        suspendedManually: false,
        suspendedAt: null,
        suspendReason: null,
        updatedAt: now,
      })
      .where(and(liveTenant(input.tenantId), eq(tenants.suspendedManually, true)))
      .returning(schoolSummaryColumns),
    ctx.db.select({ id: tenants.id }).from(tenants).where(liveTenant(input.tenantId)).limit(1),
  ]);
  if (schools.length === 0) throw new ApiError(billingErrors.TENANT_NOT_FOUND);
  // Told only when this request lifted the suspension and the school is open again.
  const school = lifted[0] ? schoolSummary(lifted[0]) : null;
  if (school) {
    const entry = billingEntry("billing.resumed", "Suspension lifted", before[0], lifted[0]!, input.by);
    await tellSchoolAdmins(ctx, school, billingOpen(school, now) ? "billing.unsuspended" : null, { school_title: school.title, expires_at: school.expiresAt === null ? null : timestamp(school.expiresAt) }, `billing.unsuspended:${school.id}:${now}`, entry);
  }
  return { unsuspended: lifted.length > 0 };
}

/** The billing state of a live school, read in the control batch just ahead of its change (the audit entry's before). */
function stateBefore(ctx: ServiceContext, tenantId: string) {
  return ctx.db
    .select({ planState: tenants.planState, expiresAt: tenants.expiresAt, suspendedManually: tenants.suspendedManually, suspendReason: tenants.suspendReason })
    .from(tenants)
    .where(liveTenant(tenantId))
    .limit(1);
}

type BillingState = { planState: string; expiresAt: number | null; suspendedManually: boolean; suspendReason?: string | null };

/** A superadmin's billing action as the school's audit entry: plan state, expiry and manual suspension, before and after. */
function billingEntry(action: string, summary: string, before: BillingState | undefined, after: BillingState, by: Actor | undefined) {
  const view = (state: BillingState | undefined) => ({
    plan_state: state?.planState ?? null,
    expires_at: isoOrNull(state?.expiresAt),
    suspended_manually: state?.suspendedManually ?? null,
  });
  return {
    action,
    summary,
    changes: diffRows(view(before), view(after), ["plan_state", "expires_at", "suspended_manually"]),
    ...(by ? { actor: { userId: by.userId, role: by.role, name: `${by.firstName} ${by.lastName}`.trim() } } : {}),
  };
}

/**
 * A billing push to the school's admins once the control write took effect: written in the
 * school's shard (a second database, so after the write, never in its batch), with the values the
 * write returned. A failure here loses only the push, never the payment or the state change.
 */
async function tellSchoolAdmins(
  ctx: ServiceContext,
  school: TenantSummary,
  code: "billing.activated" | "billing.extended" | "billing.suspended" | "billing.unsuspended" | null,
  variables: Record<string, unknown>,
  dedupe: string,
  audit?: Omit<AuditInput, "targetType" | "targetId">,
): Promise<void> {
  const schoolCtx = forSchool(ctx, school, systemActor("billing"));
  try {
    // The school's audit entry shares the push's batch: the one shard round trip these writes cost.
    await runBatch(schoolCtx, [
      ...(code ? [await enqueue(schoolCtx, code, { token: "school_admins" }, variables, { id: school.id }, dedupe)] : []),
      ...(audit ? [auditEntry(schoolCtx, { ...audit, targetType: "school", targetId: school.id })] : []),
    ]);
    if (code) await dispatchQueued(schoolCtx);
  } catch (err) {
    log.error("billing push not written", { request_id: ctx.requestId, tenant_id: school.id, event_code: code, error: String(err) });
  }
}
