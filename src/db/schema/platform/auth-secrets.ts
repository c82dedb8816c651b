import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id } from "../columns";

/** Only the SHA-256 of the emailed token is stored. */
export const emailVerificationTokens = sqliteTable(
  "email_verification_tokens",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    userId: text("user_id").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    invalidatedAt: integer("invalidated_at"),
    createdAt: createdAt(),
  },
  (t) => [index("email_verification_user").on(t.userId, t.createdAt), index("email_verification_tenant").on(t.tenantId, t.createdAt)],
);

/** Only a keyed HMAC of the 6-digit code is stored; at most one live code per user (partial unique index). */
export const passwordResetCodes = sqliteTable(
  "password_reset_codes",
  {
    id: id(),
    tenantId: text("tenant_id"),
    userId: text("user_id").notNull(),
    codeHash: text("code_hash").notNull(),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    invalidatedAt: integer("invalidated_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("password_reset_live").on(t.userId).where(sql`used_at IS NULL AND invalidated_at IS NULL`),
    index("password_reset_tenant_user").on(t.tenantId, t.userId),
  ],
);

/** Failed-login counters, one row per (school, email) pair and per IP; updated with atomic upserts. */
export const loginFailures = sqliteTable("login_failures", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull(),
  windowStartedAt: integer("window_started_at").notNull(),
  lockedUntil: integer("locked_until"),
});
