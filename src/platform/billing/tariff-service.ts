import { and, asc, eq, isNull } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { tariffs } from "../../db/schema";
import type { ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { billingErrors } from "./errors";
import type { CreateTariffBody, UpdateTariffBody } from "./schemas";

type TariffRow = typeof tariffs.$inferSelect;

export function tariffRecord(row: TariffRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    price_cents: row.priceCents,
    duration_days: row.durationDays,
    is_active: row.isActive,
    sort_order: row.sortOrder,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

const live = (id: string) => and(eq(tariffs.id, id), isNull(tariffs.deletedAt));

export async function createTariff(ctx: ServiceContext, input: z.infer<typeof CreateTariffBody>) {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(tariffs)
    .values({
      id: uuidv7(now),
      title: input.title,
      description: input.description ?? null,
      priceCents: input.price_cents ?? 0,
      durationDays: input.duration_days,
      isActive: input.is_active ?? true,
      sortOrder: input.sort_order ?? 0,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return tariffRecord(row!);
}

/** The catalog in display order. */
export async function listTariffs(ctx: ServiceContext, input: { activeOnly: boolean }) {
  const rows = await ctx.db
    .select()
    .from(tariffs)
    .where(and(isNull(tariffs.deletedAt), input.activeOnly ? eq(tariffs.isActive, true) : undefined))
    .orderBy(asc(tariffs.sortOrder), asc(tariffs.createdAt), asc(tariffs.id));
  return rows.map(tariffRecord);
}

export async function updateTariff(ctx: ServiceContext, input: { tariffId: string; changes: z.infer<typeof UpdateTariffBody> }) {
  const { changes } = input;
  const set: Partial<typeof tariffs.$inferInsert> = {
    ...(changes.title !== undefined ? { title: changes.title } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.price_cents !== undefined ? { priceCents: changes.price_cents } : {}),
    ...(changes.duration_days !== undefined ? { durationDays: changes.duration_days } : {}),
    ...(changes.is_active !== undefined ? { isActive: changes.is_active } : {}),
    ...(changes.sort_order !== undefined ? { sortOrder: changes.sort_order } : {}),
  };
  const [row] =
    Object.keys(set).length === 0
      ? await ctx.db.select().from(tariffs).where(live(input.tariffId)).limit(1)
      : await ctx.db
          .update(tariffs)
          .set({ ...set, updatedAt: ctx.clock.now() })
          .where(live(input.tariffId))
          .returning();
  if (!row) throw new ApiError(billingErrors.TARIFF_NOT_FOUND);
  return tariffRecord(row);
}

/** Soft delete: payments keep their title snapshot; schools on it keep their period. */
export async function deleteTariff(ctx: ServiceContext, input: { tariffId: string }) {
  const now = ctx.clock.now();
  const deleted = await ctx.db
    .update(tariffs)
    .set({ deletedAt: now, updatedAt: now })
    .where(live(input.tariffId))
    .returning({ id: tariffs.id });
  if (deleted.length === 0) throw new ApiError(billingErrors.TARIFF_NOT_FOUND);
  return { deleted: true as const };
}
