import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { examAnalytics } from "../analytics";
import { ExamAnalytics, ExamAnalyticsQuery } from "../analytics-schemas";
// Registers the exam fields of campaign audiences with the notifications area.
import "../audience-fields";
import { examsErrors as e } from "../errors";

export const examAnalyticsRoutesPart = createArea();

const analyticsRoute = defineRoute({
  method: "get",
  path: "/t/exams/{id}/analytics",
  gate: gates.permission("can_view_analytics"),
  deny: "forbidden",
  tags: ["Exams"],
  summary: "An exam's figures: attempts, results, per-section means and the score distribution; restricted curators count their own students only",
  request: { params: IdParams, query: ExamAnalyticsQuery },
  failures: [e.EXAM_NOT_FOUND],
  responses: { 200: okResponse(ExamAnalytics) },
});

examAnalyticsRoutesPart.openapi(analyticsRoute, async (c) => ok(c, await examAnalytics(tenantCtx(c), { examId: c.req.valid("param").id, query: c.req.valid("query") })));
