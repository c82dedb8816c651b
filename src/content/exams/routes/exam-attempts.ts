import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { attemptsErrors } from "../../attempts/errors";
import { coursesErrors } from "../../courses/errors";
import { scheduleErrors } from "../../schedule/errors";
import * as s from "../attempt-schemas";
import { examsErrors as e } from "../errors";
import { getActiveExamAttempt, getExamAttempt, startExamAttempt, submitExamAttempt } from "../exam-attempt-service";
import { goToSection, saveSectionAnswers } from "../section-answers-service";
import { extendExamAttempt } from "../extension-service";
import { ExtendBody } from "../../attempts/time-extended";

/** Taking an exam: start, the attempt in progress, read, open a section, save its answers, submit. */
export const examAttemptRoutesPart = createArea();

const tags = ["Exam attempts"];
const member = { gate: gates.member } as const;

const startRoute = defineRoute({
  method: "post",
  path: "/t/exam-attempts",
  ...member,
  tags,
  summary: "Start an attempt at a published exam (201), or get back the caller's attempt in progress (200)",
  description:
    "Any student, curator or admin of the school; the role is stored as actor_role. deadline_at = start + the exam's time limit, held by the server. " +
    "A student meets the dates of the lessons that name the exam (the most lenient; after the end only a first attempt is refused); staff skip them.",
  request: jsonBody(s.StartExamAttemptBody),
  failures: [attemptsErrors.INVALID_ACTOR_ROLE, e.EXAM_NOT_PUBLISHED, scheduleErrors.WINDOW_CLOSED, e.EXAM_NOT_FOUND, e.MAX_EXAM_ATTEMPTS_REACHED, coursesErrors.SEQUENTIAL_ORDER_REQUIRED],
  responses: { 200: okResponse(s.ExamAttempt, "The caller's attempt in progress"), 201: okResponse(s.ExamAttempt, "Started") },
});

examAttemptRoutesPart.openapi(startRoute, async (c) => {
  const { attempt, created } = await startExamAttempt(tenantCtx(c), { examId: c.req.valid("json").exam_id });
  return created ? ok(c, attempt, 201) : ok(c, attempt, 200);
});

// Registered before /t/exam-attempts/{id}, which would otherwise take "active" for an id.
const activeRoute = defineRoute({
  method: "get",
  path: "/t/exam-attempts/active",
  ...member,
  tags,
  summary: "The caller's attempt in progress of an exam (an attempt found past its time is finished first)",
  request: { query: s.ActiveExamAttemptQuery },
  failures: [e.EXAM_ATTEMPT_NOT_FOUND],
  responses: { 200: okResponse(s.ExamAttempt) },
});

examAttemptRoutesPart.openapi(activeRoute, async (c) => ok(c, await getActiveExamAttempt(tenantCtx(c), { examId: c.req.valid("query").exam_id })));

const getRoute = defineRoute({
  method: "get",
  path: "/t/exam-attempts/{id}",
  ...member,
  tags,
  summary: "An exam attempt: its owner always, staff within their scope; finished attempts carry each section's result",
  request: { params: IdParams },
  failures: [e.EXAM_ATTEMPT_NOT_FOUND],
  responses: { 200: okResponse(s.ExamAttempt) },
});

examAttemptRoutesPart.openapi(getRoute, async (c) => ok(c, await getExamAttempt(tenantCtx(c), { id: c.req.valid("param").id })));

const goRoute = defineRoute({
  method: "post",
  path: "/t/exam-attempts/{id}/go",
  ...member,
  tags,
  summary: "Open a section of your attempt (any order, again until the deadline): its quiz in the student view with fresh matching tokens",
  request: { params: IdParams, ...jsonBody(s.GoBody) },
  failures: [e.INVALID_SECTION_INDEX, e.EXAM_ATTEMPT_NOT_FOUND, e.EXAM_ATTEMPT_ALREADY_SUBMITTED],
  responses: { 200: okResponse(s.GoResult) },
});

examAttemptRoutesPart.openapi(goRoute, async (c) =>
  ok(c, await goToSection(tenantCtx(c), { id: c.req.valid("param").id, sectionIndex: c.req.valid("json").section_index })),
);

const saveRoute = defineRoute({
  method: "post",
  path: "/t/exam-attempts/{id}/sections/{n}/answers",
  ...member,
  tags,
  summary: "Save answers of an opened section, merged by question (highest client_seq wins); saves within the grace after deadline_at still count",
  request: { params: s.SectionParams, ...jsonBody(s.SaveSectionAnswersBody) },
  failures: [e.INVALID_SECTION_INDEX, e.QUESTION_NOT_IN_SECTION, attemptsErrors.QUESTION_NOT_IN_FORM, e.EXAM_ATTEMPT_NOT_FOUND, e.EXAM_ATTEMPT_ALREADY_SUBMITTED],
  responses: { 200: okResponse(s.SectionSaveResult) },
});

examAttemptRoutesPart.openapi(saveRoute, async (c) => {
  const { id, n } = c.req.valid("param");
  return ok(c, await saveSectionAnswers(tenantCtx(c), { id, n, body: c.req.valid("json") }));
});

const submitRoute = defineRoute({
  method: "post",
  path: "/t/exam-attempts/{id}/submit",
  ...member,
  tags,
  summary: "Finish your attempt: every opened section is scored and the weighted final score computed by the server (any body is ignored)",
  // No body is declared: whatever is sent is never read.
  request: { params: IdParams },
  failures: [e.EXAM_ATTEMPT_NOT_FOUND, e.EXAM_ATTEMPT_ALREADY_SUBMITTED],
  responses: { 200: okResponse(s.ExamAttempt) },
});

examAttemptRoutesPart.openapi(submitRoute, async (c) => ok(c, await submitExamAttempt(tenantCtx(c), { id: c.req.valid("param").id })));

const extendRoute = defineRoute({
  method: "post",
  path: "/t/exam-attempts/{id}/extend",
  gate: gates.permission("can_manage_exams"),
  deny: "forbidden",
  tags,
  summary: "Extend an exam attempt in progress by add_seconds: its deadline, its timer (warning and finish) and its open sections move together; the student is told",
  description:
    "A restricted curator reaches only their own students' attempts. An extension received after deadline_at plus the grace is refused " +
    "(409 exam_attempt_already_submitted) and the attempt finishes then, as it would on a save.",
  request: { params: IdParams, ...jsonBody(ExtendBody) },
  // Every exam has a time limit, so attempt_not_timed (listed by the contract) is never answered here.
  failures: [e.EXAM_ATTEMPT_NOT_FOUND, e.EXAM_ATTEMPT_ALREADY_SUBMITTED, attemptsErrors.ATTEMPT_NOT_TIMED],
  audit: { actions: ["exam_attempt.extended"] },
  responses: { 200: okResponse(s.ExamAttempt) },
});

examAttemptRoutesPart.openapi(extendRoute, async (c) => ok(c, await extendExamAttempt(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));
