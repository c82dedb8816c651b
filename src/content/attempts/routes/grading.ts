import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { gates } from "../../../core/http/gates";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { quizzesErrors } from "../../quizzes/errors";
import { listQuizAttempts } from "../attempts-list";
// Registers the quiz fields of campaign audiences with the notifications area.
import "../audience";
import * as s from "../grading-schemas";

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
