import { sha256Hex } from "../../core/lib/crypto";
import { sql } from "drizzle-orm";
import { batchable, changedRows, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import { restrictedScope } from "../../platform/schools/curator-scope";
import { quizzesErrors } from "../quizzes/errors";
import { computeItemFigures, countedSql, itemReads, quizItemsOf, SETTLED } from "./compute";
import type { ItemAnalysisFigures } from "./stats";

/**
 * GET /quizzes/:id/item-analysis (docs/decisions/item-analysis.md). A restricted curator's figures
 * are computed at the read over their own students; everyone else reads the school's snapshot,
 * fresh when the kept figures still give its fingerprint, else recomputed at the read (up to
 * `LIVE_LIMIT` attempts) or by the queue while the read answers the snapshot it has.
 */

/** Up to this many counted attempts a stale or missing snapshot is computed at the read (one page). */
export const LIVE_LIMIT = 200;
/** A recompute is asked for at most once per quiz in this many ms (the debounce). */
export const REQUEST_DEBOUNCE_MS = 60_000;

export interface ItemAnalysis extends ItemAnalysisFigures {
  quiz_id: string;
  computed_at: string;
}

interface SnapshotRow {
  fingerprint: string | null;
  data: string | null;
  computed_at: number | null;
}

interface ChangeRow {
  version: number;
  deleted: number;
  last_deleted: number | null;
}

/**
 * What says the snapshot's attempts changed (docs/decisions/item-analysis.md, "Snapshot and
 * freshness"): the quiz's figures version (kept by triggers on `quiz_figures`) and the school's
 * deleted members (an index range of them), then whether the quiz has more than `LIVE_LIMIT`
 * counted attempts (a scan that stops after `LIVE_LIMIT` + 1). Neither grows with the quiz.
 */
function freshnessSql(ctx: SchoolCtx<SchoolActor>, quizId: string) {
  const t = ctx.tenantId;
  return [
    batchable(
      ctx,
      sql`SELECT (SELECT v.version FROM quiz_figure_versions v WHERE ${inSchool("v", t)} AND v.quiz_id = ${quizId}) AS version,
          count(*) AS deleted, max(u.deleted_at) AS last_deleted
        FROM users u WHERE ${inSchool("u", t)} AND u.deleted_at IS NOT NULL`,
    ),
    batchable(ctx, sql`SELECT count(*) AS counted FROM (SELECT 1 ${countedSql(ctx, "quiz_attempts", quizId, SETTLED)} LIMIT ${LIVE_LIMIT + 1})`),
  ];
}

function fingerprintOf(changes: unknown, items: { quiz: { questions_per_attempt: number | null }; stamps: string[] }) {
  const { version, deleted, last_deleted } = rowsOf<ChangeRow>(changes)[0]!;
  return sha256Hex(JSON.stringify([version ?? 0, deleted, last_deleted, items.quiz.questions_per_attempt, items.stamps]));
}

const snapshotSql = (ctx: SchoolCtx<SchoolActor>, quizId: string) =>
  batchable(ctx, sql`SELECT s.fingerprint, s.data, s.computed_at FROM item_analysis_snapshots s WHERE ${inSchool("s", ctx.tenantId)} AND s.quiz_id = ${quizId}`);

export async function getItemAnalysis(ctx: SchoolCtx, input: { quizId: string }): Promise<ItemAnalysis> {
  const { quizId } = input;
  const now = ctx.clock.now();
  const restricted = restrictedScope(ctx) !== null;
  const [quiz, questions, answers, snapshot, changes, counted] = await runBatch(ctx, [
    ...itemReads(ctx, quizId),
    ...(restricted ? [] : [snapshotSql(ctx, quizId), ...freshnessSql(ctx, quizId)]),
  ]);
  const items = quizItemsOf(quiz, questions, answers);
  if (!items) throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
  const live = async () => ({ quiz_id: quizId, computed_at: iso(now), ...(await computeItemFigures(ctx, quizId, items)) });
  if (restricted) return live();
  const fingerprint = await fingerprintOf(changes, items);
  const stored = rowsOf<SnapshotRow>(snapshot)[0];
  if (stored?.data && stored.computed_at !== null && stored.fingerprint === fingerprint) return snapshotAnswer(quizId, stored);
  if (rowsOf<{ counted: number }>(counted)[0]!.counted <= LIVE_LIMIT) return live();
  await requestRecompute(ctx, quizId, now);
  return stored?.data && stored.computed_at !== null ? snapshotAnswer(quizId, stored) : live();
}

function snapshotAnswer(quizId: string, stored: SnapshotRow): ItemAnalysis {
  return { quiz_id: quizId, computed_at: iso(stored.computed_at!), ...(JSON.parse(stored.data!) as ItemAnalysisFigures) };
}

/** Asks the queue for a recompute unless one was asked for within the debounce; a lost message is asked for again after it. */
async function requestRecompute(ctx: SchoolCtx<SchoolActor>, quizId: string, now: number): Promise<void> {
  const [asked] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO item_analysis_snapshots (tenant_id, quiz_id, requested_at) VALUES (${ctx.tenantId}, ${quizId}, ${now})
        ON CONFLICT (tenant_id, quiz_id) DO UPDATE SET requested_at = excluded.requested_at
        WHERE item_analysis_snapshots.requested_at IS NULL OR item_analysis_snapshots.requested_at <= ${now - REQUEST_DEBOUNCE_MS}`,
    ),
  ]);
  if (changedRows(asked) !== 1) return;
  await ctx.env.ITEM_ANALYSIS.send({ kind: "item_analysis", tenant_id: ctx.tenantId, quiz_id: quizId }).catch((err: unknown) => {
    log.error("item analysis request not sent", { quiz_id: quizId, error: String(err) });
  });
}

/**
 * The queue's recompute of a quiz's snapshot over every counted attempt: the fingerprint is read
 * before the attempts, so a change made while the pages are read leaves the snapshot stale and the
 * next read asks again. Returns false when the quiz is gone.
 */
export async function recomputeSnapshot(ctx: SchoolCtx<SchoolActor>, quizId: string): Promise<boolean> {
  const now = ctx.clock.now();
  const [quiz, questions, answers, snapshot, changes] = await runBatch(ctx, [...itemReads(ctx, quizId), snapshotSql(ctx, quizId), freshnessSql(ctx, quizId)[0]!]);
  const items = quizItemsOf(quiz, questions, answers);
  if (!items) return false;
  const fingerprint = await fingerprintOf(changes, items);
  // A repeated message, or one a recompute already answered: nothing to do.
  if (rowsOf<SnapshotRow>(snapshot)[0]?.fingerprint === fingerprint) return true;
  const data = JSON.stringify(await computeItemFigures(ctx, quizId, items));
  await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO item_analysis_snapshots (tenant_id, quiz_id, fingerprint, data, computed_at, requested_at)
        VALUES (${ctx.tenantId}, ${quizId}, ${fingerprint}, ${data}, ${now}, NULL)
        ON CONFLICT (tenant_id, quiz_id) DO UPDATE SET fingerprint = excluded.fingerprint, data = excluded.data,
          computed_at = excluded.computed_at, requested_at = NULL
        WHERE item_analysis_snapshots.computed_at IS NULL OR item_analysis_snapshots.computed_at <= excluded.computed_at`,
    ),
  ]);
  return true;
}
