import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { attemptsErrors as e } from "../errors";
import { extendAttempt } from "../extension-service";
import { Attempt } from "../schemas";
import { ExtendBody } from "../time-extended";

/** Staff give a running timed quiz attempt more time (05 section 1). */
export const extensionRoutesPart = createArea();

const extendRoute = defineRoute({
  method: "post",
  path: "/t/attempts/{id}/extend",
  gate: gates.permission("can_manage_courses"),
  deny: "forbidden",
  tags: ["Quiz attempts"],
  summary: "Extend a timed quiz attempt in progress by add_seconds (its deadline and its timer move together); the student is told",
  description:
    "A restricted curator reaches only their own students' attempts. An extension received after deadline_at plus the grace is refused " +
    "(409 attempt_already_submitted) and the attempt finishes then, as it would on a save.",
  request: { params: IdParams, ...jsonBody(ExtendBody) },
  failures: [e.ATTEMPT_NOT_FOUND, e.ATTEMPT_ALREADY_SUBMITTED, e.ATTEMPT_NOT_TIMED],
  audit: { actions: ["attempt.extended"] },
  responses: { 200: okResponse(Attempt) },
});

extensionRoutesPart.openapi(extendRoute, async (c) => ok(c, await extendAttempt(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));
