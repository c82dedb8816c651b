import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, id, updatedAt } from "../columns";

export const tariffs = sqliteTable("tariffs", {
  id: id(),
  title: text("title").notNull(),
  description: text("description"),
  priceCents: integer("price_cents").notNull().default(0),
  durationDays: integer("duration_days").notNull(),
  isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
  sortOrder: integer("sort_order").notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  deletedAt: deletedAt(),
});

/** One row per activation or extension, written in the same batch as the billing state change. */
export const payments = sqliteTable(
  "payments",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    tariffId: text("tariff_id"),
    tariffTitleSnapshot: text("tariff_title_snapshot"),
    amountCents: integer("amount_cents").notNull(),
    currency: text("currency").notNull(),
    days: integer("days").notNull(),
    method: text("method").notNull(),
    reference: text("reference"),
    notes: text("notes"),
    appliedExpiresAt: integer("applied_expires_at").notNull(),
    createdByUserId: text("created_by_user_id"),
    createdAt: createdAt(),
  },
  (t) => [index("payments_tenant").on(t.tenantId, t.createdAt)],
);
