import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { gates } from "../../core/http/gates";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { quizzesErrors as e } from "../quizzes/errors";
import { ItemAnalysis } from "./schemas";
import { getItemAnalysis } from "./service";

/** Item analysis of a quiz (05 section 2, docs/decisions/item-analysis.md). */
export const itemAnalysisRoutes = createArea();

const itemAnalysisRoute = defineRoute({
  method: "get",
  path: "/t/quizzes/{id}/item-analysis",
  gate: gates.permission("can_view_analytics"),
  deny: "forbidden",
  tags: ["Quizzes"],
  summary: "Per-question facility, discrimination, point-biserial and option shares, and KR-20, over settled student attempts outside exams",
  description:
    "Figures over fewer than 20 attempts are null (`insufficient_data`). With random forms an item's `n` is the attempts that drew it. " +
    "Restricted curators count their own students. `computed_at` says when the figures were computed: a large quiz's snapshot is recomputed in the background.",
  request: { params: IdParams },
  failures: [e.QUIZ_NOT_FOUND],
  responses: { 200: okResponse(ItemAnalysis) },
});

itemAnalysisRoutes.openapi(itemAnalysisRoute, async (c) => ok(c, await getItemAnalysis(tenantCtx(c), { quizId: c.req.valid("param").id })));
