import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { curatorAnalytics } from "./curators-service";
import { analyticsErrors as e } from "./errors";
import { CuratorAnalytics, CuratorAnalyticsQuery } from "./schemas";

/** GET /analytics/curators. */
export const analyticsRoutes = createArea();

const curatorsRoute = defineRoute({
  method: "get",
  path: "/t/analytics/curators",
  // Admins and every curator, no analytics flag; students are refused at the gate.
  gate: { kind: "roles", roles: ["admin", "curator", "superadmin"] },
  deny: "forbidden",
  tags: ["Analytics"],
  summary: "How curators' students work in a period: active, assignments on time, quizzes and exams completed; a curator gets their own row",
  request: { query: CuratorAnalyticsQuery },
  failures: [e.INVALID_FROM, e.INVALID_TO, e.INVALID_DATE_RANGE],
  responses: { 200: okResponse(CuratorAnalytics) },
});

analyticsRoutes.openapi(curatorsRoute, async (c) => ok(c, await curatorAnalytics(tenantCtx(c), c.req.valid("query"))));
