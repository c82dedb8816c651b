import { SELF } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { readResponse } from "../../helpers/http";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { insertAssignment, type AssignmentSpec } from "../assignments/helpers";

/** Submissions through HTTP, with assignments written straight to D1. */

export async function submissionSchool(spec: AssignmentSpec = {}) {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const assignment = await insertAssignment(school.id, spec);
  return { school, admin, student, assignment };
}

export const createDraft = (member: Member, assignmentId: string, body?: unknown) =>
  as(member, `/t/assignments/${assignmentId}/submissions`, { method: "POST", ...(body === undefined ? {} : { body }) });
export const patchSubmission = (member: Member, id: string, body: unknown) => as(member, `/t/submissions/${id}`, { method: "PATCH", body });
export const submit = (member: Member, id: string) => as(member, `/t/submissions/${id}/submit`, { method: "POST" });
export const review = (member: Member, id: string, body: unknown) => as(member, `/t/submissions/${id}/review`, { body });
export const reopen = (member: Member, id: string) => as(member, `/t/submissions/${id}/reopen`, { method: "POST" });
export const getSubmission = (member: Member, id: string) => as(member, `/t/submissions/${id}`);
export const worksheet = (member: Member, assignmentId: string, query = "") => as(member, `/t/assignments/${assignmentId}/submissions${query}`);
export const history = (member: Member, assignmentId: string, query = "") => as(member, `/t/assignments/${assignmentId}/submissions/history${query}`);

/** A new draft (201 asserted); returns the submission. */
export async function draftOf(member: Member, assignmentId: string, body?: unknown) {
  const res = await createDraft(member, assignmentId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as Record<string, any> & { id: string };
}

/** A draft handed in (both asserted); returns the submission id. */
export async function submitted(member: Member, assignmentId: string) {
  const draft = await draftOf(member, assignmentId);
  const res = await submit(member, draft.id);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return draft.id;
}

/** Posts `files` as parts named `attachments` (or `field`) of a multipart create. */
export async function postFiles(member: Member, assignmentId: string, files: { name: string; bytes: Uint8Array; type?: string }[], field = "attachments") {
  const form = new FormData();
  for (const file of files) form.append(field, new File([file.bytes], file.name, { type: file.type ?? "application/octet-stream" }));
  const path = `/api/v1/t/assignments/${assignmentId}/submissions`;
  const response = await SELF.fetch(`https://api.lms.localhost${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain },
    body: form,
  });
  return readResponse(response, { method: "POST", path });
}

/** A published course whose lesson holds an `assignment_ref` block naming the assignment, the students enrolled. */
export async function assignmentCourse(tenantId: string, assignmentId: string, studentIds: readonly string[] = []) {
  const tree = await insertCourseTree(tenantId, { blockType: "assignment_ref", payload: { assignment_id: assignmentId }, refId: assignmentId });
  for (const studentId of studentIds) await insertEnrollment(tenantId, tree.courseId, studentId, { totalBlocks: tree.blockIds.length });
  return tree;
}

export async function submissionRows(assignmentId: string) {
  const rows = await db().select().from(schema.submissions).where(eq(schema.submissions.assignmentId, assignmentId));
  return rows.sort((a, b) => a.attempt - b.attempt || a.studentId.localeCompare(b.studentId));
}

export async function submissionFileRows(submissionId: string) {
  const rows = await db().select().from(schema.submissionAttachments).where(eq(schema.submissionAttachments.submissionId, submissionId));
  return rows.sort((a, b) => a.position - b.position);
}

export async function setSubmission(id: string, values: Partial<typeof schema.submissions.$inferInsert>) {
  await db().update(schema.submissions).set(values).where(eq(schema.submissions.id, id));
}

/** A window on the tree's first lesson (the default grid). */
export async function lessonWindow(tenantId: string, tree: { courseId: string; modules: { id: string }[]; lessonIds: string[] }, window: { startsAt?: number | null; endsAt?: number | null; allowAfterEnd?: boolean }) {
  const now = Date.now();
  const lessonId = tree.lessonIds[0]!;
  await db().insert(schema.scheduleWindows).values({
    id: uuidv7(),
    tenantId,
    courseId: tree.courseId,
    groupId: null,
    gridKey: "",
    level: "lesson",
    moduleId: tree.modules[0]!.id,
    lessonId,
    nodeId: lessonId,
    startsAt: window.startsAt ?? null,
    endsAt: window.endsAt ?? null,
    allowBeforeStart: false,
    allowAfterEnd: window.allowAfterEnd ?? false,
    createdAt: now,
    updatedAt: now,
  });
}
