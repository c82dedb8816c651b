import { sql } from "drizzle-orm";
import { changedRows, type BatchItem } from "../../core/db/batch";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { assignments } from "../../db/schema";
import { assignmentOr404, getAssignment, readAssignments } from "./assignment-read";
import { assignmentsErrors } from "./errors";
import { presentAssignment, type AssignmentView } from "./present";
import type { CreateAssignmentBody, UpdateAssignmentBody } from "./schemas";
import { liveInSchool } from "../../core/db/conditions";

const DEFAULT_MAX_SCORE_HUNDREDTHS = 10_000;

/** POST /t/assignments: one statement; a new assignment has no attachments and no group targets (open to all). */
export async function createAssignment(ctx: SchoolCtx, input: { body: CreateAssignmentBody }): Promise<AssignmentView> {
  const { body } = input;
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(assignments)
    .values({
      id: uuidv7(now),
      tenantId: ctx.tenantId,
      title: body.title,
      instructions: body.instructions ?? "",
      maxScoreHundredths: body.max_score ?? DEFAULT_MAX_SCORE_HUNDREDTHS,
      maxAttempts: body.max_attempts ?? null,
      screenshotProtectionEnabled: body.screenshot_protection_enabled ?? false,
      createdBy: ctx.actor.userId,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  const created = row!;
  return presentAssignment(
    ctx,
    {
      id: created.id,
      title: created.title,
      instructions: created.instructions,
      max_score_hundredths: created.maxScoreHundredths,
      max_attempts: created.maxAttempts,
      screenshot_protection_enabled: created.screenshotProtectionEnabled ? 1 : 0,
      created_at: created.createdAt,
      updated_at: created.updatedAt,
    },
    [],
  );
}

/**
 * PATCH /t/assignments/:id: the UPDATE and the assignment's new state in one batch. A new
 * `max_score` leaves the scores already given as they are. An empty body changes nothing.
 */
export async function updateAssignment(ctx: SchoolCtx, input: { id: string; body: UpdateAssignmentBody }): Promise<AssignmentView> {
  const { id, body } = input;
  const changes = {
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
    ...(body.max_score !== undefined ? { maxScoreHundredths: body.max_score } : {}),
    ...(body.clear_max_attempts === true ? { maxAttempts: null } : body.max_attempts !== undefined ? { maxAttempts: body.max_attempts } : {}),
    ...(body.screenshot_protection_enabled !== undefined ? { screenshotProtectionEnabled: body.screenshot_protection_enabled } : {}),
  };
  if (Object.keys(changes).length === 0) return getAssignment(ctx, { id });
  const update = ctx.db
    .update(assignments)
    .set({ ...changes, updatedAt: ctx.clock.now() })
    .where(liveRowWhere(assignments, ctx.tenantId, id));
  const { assignments: read } = await readAssignments(ctx, [id], [update as unknown as BatchItem]);
  return assignmentOr404(read, id);
}

/**
 * DELETE /t/assignments/:id: soft, one statement. Attachments, group targets and submissions stay
 * for the record; blocks naming the assignment then find nothing.
 */
export async function deleteAssignment(ctx: SchoolCtx, input: { id: string }): Promise<void> {
  const now = ctx.clock.now();
  const result = await ctx.db.run(
    sql`UPDATE assignments SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${input.id} AND ${liveInSchool(ctx.tenantId)}`,
  );
  if (changedRows(result) === 0) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
}
