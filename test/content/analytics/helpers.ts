import { eq } from "drizzle-orm";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { createUser, db } from "../../helpers/factories";
import { rebuildActivityDays } from "../../helpers/figures";
import { as, type Member } from "../../helpers/users";

/** Curator analytics through HTTP, with the school's rows written straight to D1. */

export const curatorAnalytics = (member: Member, query = "") => as(member, `/t/analytics/curators${query}`);

export async function setLastName(userId: string, lastName: string) {
  await db().update(schema.users).set({ lastName }).where(eq(schema.users.id, userId));
}

/** A user of the school with these names (not signed in). */
export async function person(tenantId: string, role: "student" | "curator", firstName: string, lastName: string, options: { isActive?: boolean } = {}) {
  const user = await createUser(tenantId, { role, firstName, isActive: options.isActive });
  await setLastName(user.id, lastName);
  return { id: user.id, email: user.email };
}

/** A handed-in submission (`status` beyond draft) at `submittedAt`. */
export async function handIn(tenantId: string, assignmentId: string, studentId: string, submittedAt: number, options: { attempt?: number; status?: "submitted" | "accepted" | "rejected" } = {}) {
  await db()
    .insert(schema.submissions)
    .values({
      id: uuidv7(),
      tenantId,
      assignmentId,
      studentId,
      attempt: options.attempt ?? 1,
      status: options.status ?? "submitted",
      submittedAt,
      createdAt: submittedAt,
      updatedAt: submittedAt,
    });
  await rebuildActivityDays(tenantId, studentId);
}

/** A block completed by the student at `completedAt`. */
export async function completeBlock(tenantId: string, tree: { courseId: string; lessonIds: string[]; blockIds: string[] }, studentId: string, completedAt: number) {
  const [enrollment] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, studentId));
  await db()
    .insert(schema.blockCompletions)
    .values({
      id: uuidv7(),
      tenantId,
      courseId: tree.courseId,
      lessonId: tree.lessonIds[0]!,
      blockId: tree.blockIds[0]!,
      studentId,
      enrollmentId: enrollment?.id ?? uuidv7(),
      source: "manual",
      completedAt,
    });
  await rebuildActivityDays(tenantId, studentId);
}

/** A window on the tree's first lesson, in the default grid or in a group's grid. */
export async function lessonWindowIn(tenantId: string, tree: { courseId: string; modules: { id: string }[]; lessonIds: string[] }, endsAt: number, groupId: string | null = null) {
  const now = Date.now();
  const lessonId = tree.lessonIds[0]!;
  await db()
    .insert(schema.scheduleWindows)
    .values({
      id: uuidv7(),
      tenantId,
      courseId: tree.courseId,
      groupId,
      gridKey: groupId ?? "",
      level: "lesson",
      moduleId: tree.modules[0]!.id,
      lessonId,
      nodeId: lessonId,
      startsAt: null,
      endsAt,
      allowBeforeStart: false,
      allowAfterEnd: false,
      createdAt: now,
      updatedAt: now,
    });
}

/** An instant of March 2025 (UTC): `march(10)` is 2025-03-10T00:00Z, `march(10, 6)` six hours later. */
export const march = (day: number, hour = 0) => Date.UTC(2025, 2, day, hour);
export const MARCH = `?from=2025-03-01T00:00:00Z&to=2025-03-31T23:59:59Z`;
