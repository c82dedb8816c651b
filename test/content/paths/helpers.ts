import { eq } from "drizzle-orm";
import * as schema from "../../../src/db/schema";
import { uuidv7 } from "../../../src/core/lib/ids";
import { db } from "../../helpers/factories";

/** A learning path written straight to D1 with its courses in the given order. */
export async function insertPath(tenantId: string, options: { title?: string; status?: "draft" | "published"; courseIds?: string[]; deleted?: boolean } = {}) {
  const now = Date.now();
  const id = uuidv7();
  await db()
    .insert(schema.learningPaths)
    .values({
      id,
      tenantId,
      title: options.title ?? `Path ${id.slice(-6)}`,
      description: "",
      status: options.status ?? "published",
      createdAt: now,
      updatedAt: now,
      deletedAt: options.deleted ? now : null,
    });
  const courseIds = options.courseIds ?? [];
  if (courseIds.length > 0) {
    await db()
      .insert(schema.learningPathCourses)
      .values(courseIds.map((courseId, position) => ({ tenantId, pathId: id, courseId, position, createdAt: now })));
  }
  return id;
}

/** Marks the enrollment completed, as the completion that finishes a course leaves it. */
export async function markCompleted(enrollmentId: string, at = Date.now()) {
  await db().update(schema.enrollments).set({ completedAt: at }).where(eq(schema.enrollments.id, enrollmentId));
}
