import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { coursesErrors } from "../../courses/errors";
import { quizzesErrors } from "../../quizzes/errors";
import { scheduleErrors } from "../../schedule/errors";
import { saveAnswers, submitAttempt } from "../answers-service";
import { getAttempt, startAttempt } from "../attempt-service";
import { attemptsErrors as e } from "../errors";
import * as s from "../schemas";

/** The student flow of quiz attempts: start, read, save answers, submit. */
export const attemptRoutesPart = createArea();

const tags = ["Quiz attempts"];
const member = { gate: gates.member } as const;

const startRoute = defineRoute({
  method: "post",
  path: "/t/attempts",
  audit: { none: "the caller's own quiz attempt (self-service)" },
  ...member,
  tags,
  summary: "Start an attempt at a quiz (201), or get back the caller's attempt in progress (200)",
  description:
    "Any student, curator or admin of the school; the role is stored as actor_role. Students need the quiz through an enrolled course " +
    "and a lesson open by its dates (after the end only a first attempt is refused); staff reach every quiz of the school and skip the dates.",
  request: jsonBody(s.StartAttemptBody),
  failures: [e.INVALID_ACTOR_ROLE, scheduleErrors.WINDOW_CLOSED, quizzesErrors.QUIZ_NOT_FOUND, e.MAX_ATTEMPTS_REACHED, coursesErrors.SEQUENTIAL_ORDER_REQUIRED],
  responses: { 200: okResponse(s.Attempt, "The caller's attempt in progress"), 201: okResponse(s.Attempt, "Started") },
});

attemptRoutesPart.openapi(startRoute, async (c) => {
  const { attempt, created } = await startAttempt(tenantCtx(c), { quizId: c.req.valid("json").quiz_id });
  return created ? ok(c, attempt, 201) : ok(c, attempt, 200);
});

const getRoute = defineRoute({
  method: "get",
  path: "/t/attempts/{id}",
  ...member,
  tags,
  summary: "An attempt: its owner always, staff within their scope; in progress with the saved answers, verdicts hidden",
  request: { params: IdParams },
  failures: [e.ATTEMPT_NOT_FOUND],
  responses: { 200: okResponse(s.Attempt) },
});

attemptRoutesPart.openapi(getRoute, async (c) => ok(c, await getAttempt(tenantCtx(c), { id: c.req.valid("param").id })));

const saveRoute = defineRoute({
  method: "post",
  path: "/t/attempts/{id}/answers",
  audit: { none: "the caller's own answers (self-service)" },
  ...member,
  tags,
  summary: "Save answers of your attempt in progress, merged by question (highest client_seq wins); saves within the grace after deadline_at still count",
  request: { params: IdParams, ...jsonBody(s.SaveAnswersBody) },
  failures: [e.QUESTION_NOT_IN_QUIZ, e.QUESTION_NOT_IN_FORM, e.ATTEMPT_NOT_FOUND, quizzesErrors.QUIZ_NOT_FOUND, e.ATTEMPT_ALREADY_SUBMITTED],
  responses: { 200: okResponse(s.SaveResult) },
});

attemptRoutesPart.openapi(saveRoute, async (c) => ok(c, await saveAnswers(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));

const submitRoute = defineRoute({
  method: "post",
  path: "/t/attempts/{id}/submit",
  audit: { none: "the caller handing in their own attempt (self-service)" },
  ...member,
  tags,
  summary: "Submit your attempt: the server scores the saved answers (any body is ignored)",
  // No body is declared: whatever is sent is never read, so it can neither fail nor change the score.
  request: { params: IdParams },
  failures: [e.ATTEMPT_NOT_FOUND, quizzesErrors.QUIZ_NOT_FOUND, e.ATTEMPT_ALREADY_SUBMITTED],
  responses: { 200: okResponse(s.Attempt) },
});

attemptRoutesPart.openapi(submitRoute, async (c) => ok(c, await submitAttempt(tenantCtx(c), { id: c.req.valid("param").id })));
