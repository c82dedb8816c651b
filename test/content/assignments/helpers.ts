import { eq } from "drizzle-orm";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import type { SubmissionStatus } from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { as, type Member } from "../../helpers/users";

/**
 * Assignments, attachments, targets and submissions written straight to D1, for tests of the
 * readers (the authoring endpoints have their own tests).
 */

export interface AssignmentSpec {
  title?: string;
  instructions?: string;
  maxScoreHundredths?: number;
  maxAttempts?: number | null;
  screenshot?: boolean;
  deleted?: boolean;
  createdAt?: number;
  /** Group ids targeted. */
  groups?: string[];
}

let titleCounter = 0;

export async function insertAssignment(tenantId: string, spec: AssignmentSpec = {}) {
  const now = spec.createdAt ?? Date.now();
  const id = uuidv7(now);
  await db()
    .insert(schema.assignments)
    .values({
      id,
      tenantId,
      title: spec.title ?? `Assignment ${++titleCounter}`,
      instructions: spec.instructions ?? "",
      maxScoreHundredths: spec.maxScoreHundredths ?? 10_000,
      maxAttempts: spec.maxAttempts ?? null,
      screenshotProtectionEnabled: spec.screenshot ?? false,
      createdAt: now,
      updatedAt: now,
      deletedAt: spec.deleted ? now : null,
    });
  for (const groupId of spec.groups ?? []) await db().insert(schema.assignmentGroupTargets).values({ tenantId, assignmentId: id, groupId, createdAt: now });
  return { id, tenantId };
}

export interface SubmissionSpec {
  attempt?: number;
  status?: SubmissionStatus;
  scoreHundredths?: number | null;
}

export async function insertSubmission(tenantId: string, assignmentId: string, studentId: string, spec: SubmissionSpec = {}) {
  const now = Date.now();
  const id = uuidv7(now);
  await db()
    .insert(schema.submissions)
    .values({
      id,
      tenantId,
      assignmentId,
      studentId,
      attempt: spec.attempt ?? 1,
      status: spec.status ?? "draft",
      scoreHundredths: spec.scoreHundredths ?? null,
      submittedAt: spec.status && spec.status !== "draft" ? now : null,
      createdAt: now,
      updatedAt: now,
    });
  return id;
}

export async function assignmentRow(id: string) {
  const [row] = await db().select().from(schema.assignments).where(eq(schema.assignments.id, id));
  return row!;
}

export async function attachmentRows(assignmentId: string) {
  return db().select().from(schema.assignmentAttachments).where(eq(schema.assignmentAttachments.assignmentId, assignmentId));
}

export async function targetRows(assignmentId: string) {
  const rows = await db().select().from(schema.assignmentGroupTargets).where(eq(schema.assignmentGroupTargets.assignmentId, assignmentId));
  return rows.map((row) => row.groupId).sort();
}

export const createAssignment = (member: Member, body: unknown) => as(member, "/t/assignments", { body });
export const patchAssignment = (member: Member, id: string, body: unknown) => as(member, `/t/assignments/${id}`, { method: "PATCH", body });
export const deleteAssignment = (member: Member, id: string) => as(member, `/t/assignments/${id}`, { method: "DELETE" });
export const getAssignment = (member: Member, id: string) => as(member, `/t/assignments/${id}`);
export const listAssignments = (member: Member, query = "") => as(member, `/t/assignments${query}`);
