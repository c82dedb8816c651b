import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, flag, id, updatedAt } from "../columns";

export const tenants = sqliteTable(
  "tenants",
  {
    id: id(),
    title: text("title").notNull(),
    slug: text("slug").notNull(),
    subdomain: text("subdomain").notNull(),
    logo: text("logo"),
    colorScheme: text("color_scheme").notNull().default("#1F6FEB"),
    hideTests: flag("hide_tests"),
    hideAssignments: flag("hide_assignments"),
    hideTrialExams: flag("hide_trial_exams"),
    /** `pending` until the first admin verifies the email (or a superadmin-created school is activated), then `active`. */
    status: text("status", { enum: ["pending", "active"] }).notNull().default("pending"),
    timezone: text("timezone").notNull().default("Asia/Tashkent"),
    storageCapBytes: integer("storage_cap_bytes").notNull().default(10 * 1024 * 1024 * 1024),
    planState: text("plan_state", { enum: ["trial", "paid", "suspended"] }).notNull().default("trial"),
    expiresAt: integer("expires_at"),
    /** Set by the superadmin's suspend; blocks even GET /t/billing/me. Expiry suspensions leave it false. */
    suspendedManually: flag("suspended_manually"),
    suspendedAt: integer("suspended_at"),
    suspendReason: text("suspend_reason"),
    currentTariffId: text("current_tariff_id"),
    /**
     * The binding of the school database that holds this school's rows (`DB_SCHOOLS_<n>`): chosen
     * when the school is created (the shard with the fewest schools) and never recomputed, so tokens
     * and queued work may carry it.
     */
    shard: text("shard").notNull().default("DB_SCHOOLS_0"),
    /**
     * Whether the school may have an active webhook (docs/decisions/webhooks.md, "The school's
     * webhook flag"): read by the auth read, so a school without one writes no outbox statement.
     * Set before and after a webhook becomes active; cleared only by a compare on the epoch.
     */
    webhooksActive: flag("webhooks_active"),
    /** Bumped each time a webhook became active, after its shard write (the flag's clear compares it). */
    webhooksEpoch: integer("webhooks_epoch").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [
    uniqueIndex("tenants_slug_live").on(t.slug).where(sql`deleted_at IS NULL`),
    uniqueIndex("tenants_subdomain_live").on(t.subdomain).where(sql`deleted_at IS NULL`),
    // The new-school rule counts schools per shard.
    index("tenants_shard").on(t.shard),
  ],
);
