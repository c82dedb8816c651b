import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { gates } from "../../core/http/gates";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { auditErrors } from "./errors";
import { listAuditLog } from "./read-service";
import * as s from "./schemas";

export const auditRoutes = createArea();

const listRoute = defineRoute({
  method: "get",
  path: "/t/audit-log",
  gate: gates.admin,
  deny: "forbidden",
  errors: { query: "invalid_params" },
  tags: ["Audit log"],
  summary: "The school's audit log, newest first, filtered by actor, action, target and time (kept 400 days)",
  request: { query: s.AuditLogQuery },
  failures: [auditErrors.INVALID_PARAMS],
  responses: { 200: okResponse(s.AuditLogPage) },
});

auditRoutes.openapi(listRoute, async (c) => ok(c, await listAuditLog(tenantCtx(c), { query: c.req.valid("query") })));
