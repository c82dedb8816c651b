import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { quizzesErrors } from "../../quizzes/errors";
import { listQuizAttempts } from "../attempts-list";
// Registers the quiz fields of campaign audiences with the notifications area.
import "../audience";
import { attemptsErrors as e } from "../errors";
import { gradeAttempt } from "../grading-service";
import * as s from "../grading-schemas";
import { Attempt } from "../schemas";

export const gradingRoutesPart = createArea();

const tags = ["Quiz attempts"];
const viewAnalytics = { gate: gates.permission("can_view_analytics"), deny: "forbidden" } as const;

const listRoute = defineRoute({
  method: "get",
  path: "/t/quizzes/{id}/attempts",
  ...viewAnalytics,
  tags,
  summary: "A quiz's finished attempts (outside exam sections), newest submitted first; restricted curators see their own students'",
  request: { params: s.IdParams, query: s.ListQuizAttemptsQuery },
  failures: [quizzesErrors.QUIZ_NOT_FOUND],
  responses: { 200: okResponse(s.QuizAttemptList) },
});

gradingRoutesPart.openapi(listRoute, async (c) => ok(c, await listQuizAttempts(tenantCtx(c), { quizId: c.req.valid("param").id, query: c.req.valid("query") })));

const gradeRoute = defineRoute({
  method: "post",
  path: "/t/attempts/{id}/grade",
  audit: { actions: ["quiz_attempt.graded"] },
  ...viewAnalytics,
  tags,
  summary: "Grade answers of a submitted attempt (free text waiting for review, or any other); the attempt is re-scored and settled",
  description:
    "Each grade sets the answer's awarded_points (0 to the question's points) and optionally its feedback; is_correct is true when the " +
    "points are full. A question without a saved answer gets one (payload {}). The student is told (quiz.graded) once no answer waits " +
    "for review. A restricted curator grades only their own students' attempts (others: 404 attempt_not_found).",
  request: { params: s.IdParams, ...jsonBody(s.GradeBody) },
  failures: [e.ATTEMPT_NOT_FOUND, e.ATTEMPT_NOT_SUBMITTED, e.QUESTION_NOT_IN_QUIZ, e.POINTS_OUT_OF_RANGE],
  responses: { 200: okResponse(Attempt, "The attempt, re-scored, with every answer's verdict") },
});

gradingRoutesPart.openapi(gradeRoute, async (c) => ok(c, await gradeAttempt(tenantCtx(c), { attemptId: c.req.valid("param").id, body: c.req.valid("json") })));
