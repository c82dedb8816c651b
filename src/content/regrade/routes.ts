import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { regradeErrors as e } from "./errors";
import * as s from "./schemas";
import { regradeQuestionVerb } from "./service";

/** Regrading a quiz question (05 section 2, docs/decisions/regrade.md). */
export const regradeRoutes = createArea();

const regradeRoute = defineRoute({
  method: "post",
  path: "/t/quiz-questions/{id}/regrade",
  gate: gates.permission("can_manage_courses"),
  deny: "forbidden",
  tags: ["Quizzes"],
  summary: "Regrade a question in every submitted attempt: accept every answer, drop the question, or re-score under a new key; a dry run (default) only reports",
  description:
    "Re-scores the quiz's submitted attempts outside exam sections that took the question. The dry run reports exactly the changes the real run then makes. A quiz above one chunk of attempts is re-scored in the background.",
  request: { params: IdParams, ...jsonBody(s.RegradeBody) },
  failures: [e.INVALID_REQUEST_BODY, e.REGRADE_KEY_REQUIRED, e.QUESTION_NOT_FOUND, e.REGRADE_IN_PROGRESS],
  audit: { actions: ["regrade.applied"] },
  responses: { 200: okResponse(s.RegradeResult) },
});
regradeRoutes.openapi(regradeRoute, async (c) => ok(c, await regradeQuestionVerb(tenantCtx(c), { questionId: c.req.valid("param").id, body: c.req.valid("json") })));
