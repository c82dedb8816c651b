import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { accommodationsErrors as e } from "./errors";
import * as s from "./schemas";
import { deleteAccommodation, getAccommodation, putAccommodation } from "./service";

/** A student's accommodation profile (05 section 1, docs/decisions/accommodations.md). */
export const accommodationRoutes = createArea();

const tags = ["Accommodations"];
const manageStudents = { gate: gates.permission("can_manage_students"), deny: "forbidden" } as const;

const getRoute = defineRoute({
  method: "get",
  path: "/t/users/{id}/accommodation",
  ...manageStudents,
  tags,
  summary: "A student's accommodation profile; the neutral profile (\"1.00\", 0, 0) when none is set",
  description: "A restricted curator reaches only their own students (others: 404 user_not_found).",
  request: { params: IdParams },
  failures: [e.USER_NOT_FOUND],
  responses: { 200: okResponse(s.Accommodation) },
});
accommodationRoutes.openapi(getRoute, async (c) => ok(c, await getAccommodation(tenantCtx(c), { userId: c.req.valid("param").id })));

const putRoute = defineRoute({
  method: "put",
  path: "/t/users/{id}/accommodation",
  ...manageStudents,
  tags,
  summary: "Set a student's accommodation profile: more time and attempts on every quiz, exam and assignment (later attempts only)",
  request: { params: IdParams, ...jsonBody(s.AccommodationBody) },
  failures: [e.NOT_A_STUDENT, e.USER_NOT_FOUND],
  audit: { actions: ["accommodation.set"] },
  responses: { 200: okResponse(s.Accommodation) },
});
accommodationRoutes.openapi(putRoute, async (c) =>
  ok(c, await putAccommodation(tenantCtx(c), { userId: c.req.valid("param").id, body: c.req.valid("json") })),
);

const deleteRoute = defineRoute({
  method: "delete",
  path: "/t/users/{id}/accommodation",
  ...manageStudents,
  tags,
  summary: "Remove a student's accommodation profile (the neutral profile applies again)",
  request: { params: IdParams },
  failures: [e.USER_NOT_FOUND],
  audit: { actions: ["accommodation.removed"] },
  responses: { 204: { description: "Removed" } },
});
accommodationRoutes.openapi(deleteRoute, async (c) => {
  await deleteAccommodation(tenantCtx(c), { userId: c.req.valid("param").id });
  return c.body(null, 204);
});
