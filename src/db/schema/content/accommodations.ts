import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { updatedAt } from "../columns";

/**
 * A student's accommodation profile (05 section 1): more time and attempts on every quiz, exam
 * and assignment. No row is the neutral profile. The multiplier is kept in hundredths (100-400),
 * as every decimal of the project is, so `ceil(L × multiplier)` is exact integer arithmetic.
 */
export const accommodations = sqliteTable(
  "accommodations",
  {
    tenantId: text("tenant_id").notNull(),
    userId: text("user_id").notNull(),
    timeMultiplierHundredths: integer("time_multiplier_hundredths").notNull(),
    extraTimeSeconds: integer("extra_time_seconds").notNull(),
    extraAttempts: integer("extra_attempts").notNull(),
    note: text("note"),
    updatedBy: text("updated_by"),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] })],
);
