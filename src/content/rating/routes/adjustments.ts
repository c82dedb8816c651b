import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { AdjustmentResult, CreateAdjustmentBody } from "../adjustment-schemas";
import { createAdjustment } from "../adjustments-service";
import { ratingErrors as e } from "../errors";

/** Admins' manual point adjustments (bonuses and deductions with a reason). */
export const adjustmentsRoutesPart = createArea();

const createAdjustmentRoute = defineRoute({
  method: "post",
  path: "/t/admin/rating/adjustments",
  audit: { actions: ["rating.adjusted"] },
  gate: gates.admin,
  tags: ["Rating"],
  summary:
    "Add (positive) or deduct (negative) points for a student with a reason: 201 with the new event; 200 with the first event when the idempotency_key was used before (nothing written)",
  request: jsonBody(CreateAdjustmentBody),
  failures: [e.STUDENT_NOT_FOUND],
  responses: { 201: okResponse(AdjustmentResult, "Written"), 200: okResponse(AdjustmentResult, "The key's first event; nothing written") },
});

adjustmentsRoutesPart.openapi(createAdjustmentRoute, async (c) => {
  const { created, eventId } = await createAdjustment(tenantCtx(c), c.req.valid("json"));
  return created ? ok(c, { event_id: eventId }, 201) : ok(c, { event_id: eventId }, 200);
});
