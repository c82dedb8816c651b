import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { tenantRef } from "../columns";

/**
 * The item analysis of a quiz over every counted attempt (05 section 2), recomputed on the
 * `lms-item-analysis` queue in chunks (docs/decisions/item-analysis.md, "Snapshot and freshness").
 * `fingerprint` names the state the snapshot was computed from (the quiz's figures version, the
 * school's deleted members, its questions): a read that finds another knows the snapshot is stale. `requested_at` debounces the
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

/**
 * A counter per quiz that moves whenever a member's figures with settled student attempts are
 * rewritten (`quiz_figures` rows, rebuilt by every settle, grading and regrade, deleted by a
 * permanent deletion): the item analysis snapshot's freshness reads this one row instead of
 * summing the per-member figures (docs/decisions/item-analysis.md, "Snapshot and freshness").
 * Kept by triggers on `quiz_figures` (migration `item_analysis_versions`), so the attempt sources'
 * batches keep their statements; no code reads `meta.changes` of a `quiz_figures` write. No user
 * column.
 */
export const quizFigureVersions = sqliteTable(
  "quiz_figure_versions",
  {
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    version: integer("version").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.quizId] })],
);
