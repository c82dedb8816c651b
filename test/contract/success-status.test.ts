import { describe, expect, it } from "vitest";
import "../../src/app";
import { routeRegistry } from "../../src/core/http/route";
import { assignmentCourse } from "../content/submissions/helpers";
import { insertAssignment } from "../content/assignments/helpers";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { createUser } from "../helpers/factories";
import { insertQuiz } from "../helpers/quizzes";
import { as, createGroup, schoolWithAdmin, signedIn, type Member } from "../helpers/users";
import { storedImage } from "../media/helpers";
import { contractRoutes, routeKey } from "./contract";

/**
 * Every implemented contract route whose success status the contract states, called once with a
 * valid request: the status must be the contract's. The table below holds one valid request per
 * such route; a route that gains a stated status (or lands from the pending list) without an entry
 * fails the first test, and an entry for a route that states none fails it too.
 */

interface School {
  schoolId: string;
  admin: Member;
  student: Member;
}

interface ValidRequest {
  path: string;
  /** Who calls: the school's admin unless said. */
  caller?: "admin" | "student";
  body?: unknown;
  /** A body that is not JSON (the CSV of POST /t/imports), with its content type. */
  raw?: { text: string; contentType: string };
}

const course = async ({ schoolId }: School) => insertCourseTree(schoolId, { shape: [1, 1, 1] });

const VALID_REQUESTS: Record<string, (school: School) => Promise<ValidRequest>> = {
  "DELETE /api/v1/t/courses/:id": async (s) => ({ path: `/t/courses/${(await course(s)).courseId}` }),
  "DELETE /api/v1/t/modules/:id": async (s) => ({ path: `/t/modules/${(await course(s)).modules[0]!.id}` }),
  "POST /api/v1/t/modules/:id/duplicate": async (s) => ({ path: `/t/modules/${(await course(s)).modules[0]!.id}/duplicate` }),
  "POST /api/v1/t/modules/:id/lessons": async (s) => ({ path: `/t/modules/${(await course(s)).modules[0]!.id}/lessons`, body: { title: "Lesson" } }),
  "DELETE /api/v1/t/lessons/:id": async (s) => ({ path: `/t/lessons/${(await course(s)).lessonIds[0]}` }),
  "POST /api/v1/t/lessons/:id/duplicate": async (s) => ({ path: `/t/lessons/${(await course(s)).lessonIds[0]}/duplicate` }),
  "POST /api/v1/t/lessons/:id/blocks": async (s) => ({
    path: `/t/lessons/${(await course(s)).lessonIds[0]}/blocks`,
    body: { type: "embed", payload: { url: "https://example.com/frame" } },
  }),
  "DELETE /api/v1/t/blocks/:id": async (s) => ({ path: `/t/blocks/${(await course(s)).blockIds[0]}` }),
  "POST /api/v1/t/learning-paths": async () => ({ path: "/t/learning-paths", body: { title: "Frontend" } }),
  "DELETE /api/v1/t/quizzes/:id": async ({ schoolId }) => ({ path: `/t/quizzes/${(await insertQuiz(schoolId)).id}` }),
  "DELETE /api/v1/t/quiz-questions/:id": async ({ schoolId }) => ({
    path: `/t/quiz-questions/${(await insertQuiz(schoolId, { questions: [{ type: "single" }, { type: "single" }] })).questions[0]!.id}`,
  }),
  "POST /api/v1/t/assignments": async () => ({ path: "/t/assignments", body: { title: "Essay" } }),
  "DELETE /api/v1/t/assignments/:id": async ({ schoolId }) => ({ path: `/t/assignments/${(await insertAssignment(schoolId)).id}` }),
  "POST /api/v1/t/assignments/:id/attachments": async ({ schoolId }) => ({
    path: `/t/assignments/${(await insertAssignment(schoolId)).id}/attachments`,
    body: { media_asset_id: await storedImage(schoolId) },
  }),
  "DELETE /api/v1/t/assignments/:id/attachments/:attachmentId": async ({ schoolId, admin }) => {
    const assignment = await insertAssignment(schoolId);
    const attached = await as(admin, `/t/assignments/${assignment.id}/attachments`, { body: { media_asset_id: await storedImage(schoolId) } });
    expect(attached.status).toBe(201);
    return { path: `/t/assignments/${assignment.id}/attachments/${attached.body.data.id}` };
  },
  "POST /api/v1/t/assignments/:id/submissions": async ({ schoolId, student }) => {
    const assignment = await insertAssignment(schoolId);
    await assignmentCourse(schoolId, assignment.id, [student.id]);
    return { path: `/t/assignments/${assignment.id}/submissions`, caller: "student" };
  },
  "POST /api/v1/t/courses/:id/group-enrollments": async (s) => ({
    path: `/t/courses/${(await course(s)).courseId}/group-enrollments`,
    body: { group_id: (await createGroup(s.schoolId)).id },
  }),
  "POST /api/v1/t/courses/:id/enroll": async (s) => ({ path: `/t/courses/${(await course(s)).courseId}/enroll`, caller: "student" }),
  "POST /api/v1/t/courses/:id/enroll/bulk": async (s) => ({
    path: `/t/courses/${(await course(s)).courseId}/enroll/bulk`,
    body: { student_ids: [(await createUser(s.schoolId, { role: "student" })).id] },
  }),
  "DELETE /api/v1/t/courses/:id/enrollments/:student_id": async (s) => {
    const { courseId } = await course(s);
    await insertEnrollment(s.schoolId, courseId, s.student.id);
    return { path: `/t/courses/${courseId}/enrollments/${s.student.id}` };
  },
  "POST /api/v1/t/imports": async () => ({
    path: "/t/imports?kind=users",
    raw: { text: "email,first_name,last_name\nnew@import.test,Anna,Ivanova\n", contentType: "text/csv" },
  }),
  "DELETE /api/v1/t/users/:id/accommodation": async (s) => ({ path: `/t/users/${s.student.id}/accommodation` }),
  "POST /api/v1/t/webhooks": async () => ({ path: "/t/webhooks", body: { url: "https://crm.example.com/hooks", events: ["*"] } }),
  "DELETE /api/v1/t/webhooks/:id": async (s) => ({
    path: `/t/webhooks/${(await as(s.admin, "/t/webhooks", { method: "POST", body: { url: "https://crm.example.com/hooks", events: ["*"] } })).body.data.id}`,
  }),
  "POST /api/v1/t/me/data-export": async () => ({ path: "/t/me/data-export", caller: "student" }),
  "POST /api/v1/t/users/:id/data-export": async (s) => ({ path: `/t/users/${s.student.id}/data-export` }),
};

const registered = new Set(routeRegistry.map(routeKey));
/** Pending routes (test/contract/pending.json) have no code to call yet; the coverage test keeps that list honest. */
const stated = contractRoutes.filter((route) => route.success_status !== null && registered.has(routeKey(route)));

describe("contract success statuses", () => {
  it("has a valid request for every implemented route whose contract states a success status, and for no other", () => {
    expect(Object.keys(VALID_REQUESTS).sort()).toEqual(stated.map(routeKey).sort());
  });

  for (const route of stated) {
    const key = routeKey(route);
    it(`${key} answers ${route.success_status}`, async () => {
      const request = VALID_REQUESTS[key];
      expect(request, `no valid request for ${key}`).toBeInstanceOf(Function);
      const { school, admin } = await schoolWithAdmin();
      const student = await signedIn(school, { role: "student" });
      const call = await request!({ schoolId: school.id, admin, student });
      const res = await as(call.caller === "student" ? student : admin, call.path, {
        method: route.method,
        ...(call.body === undefined ? {} : { body: call.body }),
        ...(call.raw === undefined ? {} : { raw: call.raw.text, headers: { "content-type": call.raw.contentType } }),
      });
      expect({ route: key, status: res.status, body: res.status === route.success_status ? null : res.body }).toEqual({
        route: key,
        status: route.success_status,
        body: null,
      });
    });
  }
});
