import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { tenantRef } from "../columns";

/**
 * The item analysis of a quiz over every counted attempt (05 section 2), recomputed on the
 * `lms-item-analysis` queue in chunks (docs/decisions/item-analysis.md, "Snapshot and freshness").
 * `fingerprint` names the state of the kept figures the snapshot was computed from: a read whose
 * figures give another fingerprint knows the snapshot is stale. `requested_at` debounces the
 * recompute requests; a row without `data` is a request with no snapshot yet. No user column:
 * the data holds per-question figures only.
 */
export const itemAnalysisSnapshots = sqliteTable(
  "item_analysis_snapshots",
  {
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    fingerprint: text("fingerprint"),
    data: text("data"),
    computedAt: integer("computed_at"),
    requestedAt: integer("requested_at"),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.quizId] })],
);
