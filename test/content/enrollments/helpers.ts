import { SELF } from "cloudflare:test";
import { and, eq, sql } from "drizzle-orm";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { readResponse } from "../../helpers/http";
import { as, type Member } from "../../helpers/users";

/** A `/t/*` call with a valid token but no school: no X-Tenant-Subdomain and a host outside APP_DOMAIN. */
export async function withoutSchool(member: Member, path: string, method = "GET") {
  const response = await SELF.fetch(`https://api.example.com/api/v1${path}`, { method, headers: { authorization: `Bearer ${member.token}` } });
  return readResponse(response, { method, path: `/api/v1${path}` });
}

export const enroll = (student: Member, courseId: string) => as(student, `/t/courses/${courseId}/enroll`, { method: "POST" });

export const bulk = (staff: Member, courseId: string, studentIds: string[]) =>
  as(staff, `/t/courses/${courseId}/enroll/bulk`, { body: { student_ids: studentIds } });

export const unenroll = (staff: Member, courseId: string, studentId: string) =>
  as(staff, `/t/courses/${courseId}/enrollments/${studentId}`, { method: "DELETE" });

export async function enrollmentRow(courseId: string, studentId: string) {
  const [row] = await db()
    .select()
    .from(schema.enrollments)
    .where(and(eq(schema.enrollments.courseId, courseId), eq(schema.enrollments.studentId, studentId)));
  return row;
}

export async function sourcesOf(courseId: string, studentId: string) {
  const rows = await db()
    .select({ key: schema.enrollmentSources.sourceKey, kind: schema.enrollmentSources.kind, createdBy: schema.enrollmentSources.createdBy })
    .from(schema.enrollmentSources)
    .where(and(eq(schema.enrollmentSources.courseId, courseId), eq(schema.enrollmentSources.studentId, studentId)));
  return rows.sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * A completion of the block by the student, written straight to D1 (completion has its own tests),
 * with the enrollment's stored latest completion, which the app's completing batch would set.
 */
export async function insertCompletion(input: { tenantId: string; courseId: string; lessonId: string; blockId: string; studentId: string; enrollmentId: string; at?: number }) {
  const completedAt = input.at ?? Date.now();
  await db()
    .insert(schema.blockCompletions)
    .values({
      id: crypto.randomUUID(),
      tenantId: input.tenantId,
      courseId: input.courseId,
      lessonId: input.lessonId,
      blockId: input.blockId,
      studentId: input.studentId,
      enrollmentId: input.enrollmentId,
      source: "manual",
      completedAt,
    });
  await db()
    .update(schema.enrollments)
    .set({ lastCompletionAt: sql`max(coalesce(${schema.enrollments.lastCompletionAt}, 0), ${completedAt})` })
    .where(and(eq(schema.enrollments.tenantId, input.tenantId), eq(schema.enrollments.courseId, input.courseId), eq(schema.enrollments.studentId, input.studentId)));
}
