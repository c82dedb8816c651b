import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { DeletedResult, jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { ratingErrors as e } from "../errors";
import { listRules } from "../rules-read";
import { deleteOverrideRule, putDefaultRule, putOverrideRule } from "../rules-service";
import * as s from "../rules-schemas";

/** The school's point rules: defaults per source type and overrides per object (admins). */
export const rulesRoutesPart = createArea();

const tags = ["Rating"];

const listRulesRoute = defineRoute({
  method: "get",
  path: "/t/admin/gamification/rules",
  gate: gates.admin,
  tags,
  summary:
    "Every source type's effective default (built-in while the school has not changed it) and every live override, grouped by source type (lesson, module, course, quiz, assignment, exam, manual)",
  responses: { 200: okResponse(s.RuleList) },
});

rulesRoutesPart.openapi(listRulesRoute, async (c) => ok(c, await listRules(tenantCtx(c))));

const assignmentFailures = [e.INVALID_CALC_MODE, e.ASSIGNMENT_NO_PASSING_SCORE, e.ASSIGNMENT_PASSED_REQUIRES_THRESHOLD];

const putDefaultRoute = defineRoute({
  method: "put",
  path: "/t/admin/gamification/rules/defaults/{source_type}",
  audit: { none: "rating rule settings are not among the audited actions (05 section 6 lists point adjustments)" },
  gate: gates.admin,
  tags,
  summary: "Change the default rule of a source type; absent or null fields stay as they are (manual: only enabled)",
  request: { params: s.DefaultRuleParams, ...jsonBody(s.RuleBody) },
  errors: { param: "invalid_request_body" },
  failures: assignmentFailures,
  responses: { 200: okResponse(s.UpdatedResult) },
});

rulesRoutesPart.openapi(putDefaultRoute, async (c) =>
  ok(c, await putDefaultRule(tenantCtx(c), { sourceType: c.req.valid("param").source_type, body: c.req.valid("json") })),
);

const putOverrideRoute = defineRoute({
  method: "put",
  path: "/t/admin/gamification/rules/overrides/{source_type}/{target_id}",
  audit: { none: "rating rule settings are not among the audited actions (05 section 6 lists point adjustments)" },
  gate: gates.admin,
  tags,
  summary: "Create or change the override of one lesson, module, course, quiz, assignment or exam of the school; unset fields follow the default",
  request: { params: s.OverrideRuleParams, ...jsonBody(s.RuleBody) },
  errors: { param: "invalid_target_id" },
  failures: [e.INVALID_TARGET_ID, ...assignmentFailures],
  responses: { 200: okResponse(s.UpdatedResult) },
});

rulesRoutesPart.openapi(putOverrideRoute, async (c) => {
  const { source_type, target_id } = c.req.valid("param");
  return ok(c, await putOverrideRule(tenantCtx(c), { sourceType: source_type, targetId: target_id, body: c.req.valid("json") }));
});

const deleteOverrideRoute = defineRoute({
  method: "delete",
  path: "/t/admin/gamification/rules/overrides/{source_type}/{target_id}",
  audit: { none: "rating rule settings are not among the audited actions (05 section 6 lists point adjustments)" },
  gate: gates.admin,
  tags,
  summary: "Remove an override (soft); the object then follows the default",
  request: { params: s.OverrideRuleParams },
  errors: { param: "invalid_target_id" },
  failures: [e.INVALID_TARGET_ID, e.RULE_NOT_FOUND],
  responses: { 200: okResponse(DeletedResult) },
});

rulesRoutesPart.openapi(deleteOverrideRoute, async (c) => {
  const { source_type, target_id } = c.req.valid("param");
  return ok(c, await deleteOverrideRule(tenantCtx(c), { sourceType: source_type, targetId: target_id }));
});
