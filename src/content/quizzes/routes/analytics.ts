import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { quizAnalytics } from "../analytics";
import { QuizAnalytics, QuizAnalyticsQuery } from "../analytics-schemas";
import { quizzesErrors as e } from "../errors";

export const quizAnalyticsRoutesPart = createArea();

const analyticsRoute = defineRoute({
  method: "get",
  path: "/t/quizzes/{id}/analytics",
  gate: gates.permission("can_view_analytics"),
  deny: "forbidden",
  errors: { query: "invalid_include_admin_attempts" },
  tags: ["Quizzes"],
  summary: "A quiz's figures outside exams: attempts, results, per-question success and the score distribution; restricted curators count their own students only",
  request: { params: IdParams, query: QuizAnalyticsQuery },
  failures: [e.QUIZ_NOT_FOUND],
  responses: { 200: okResponse(QuizAnalytics) },
});

quizAnalyticsRoutesPart.openapi(analyticsRoute, async (c) => ok(c, await quizAnalytics(tenantCtx(c), { quizId: c.req.valid("param").id, query: c.req.valid("query") })));
