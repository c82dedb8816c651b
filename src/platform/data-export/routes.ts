import { z } from "@hono/zod-openapi";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { gates } from "../../core/http/gates";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { dataExportErrors as e } from "./errors";
import * as s from "./schemas";
import { downloadExport, getExport, requestExport } from "./service";

/** Personal-data exports (05 section 7, docs/decisions/data-export.md). */
export const dataExportRoutes = createArea();

const tags = ["Data export"];

const ownRoute = defineRoute({
  method: "post",
  path: "/t/me/data-export",
  gate: gates.member,
  // A person's data does not depend on the school paying (05 section 7).
  billing: "whitelisted",
  audit: { none: "a member asks for their own data; nothing of the school changes" },
  tags,
  summary: "Ask for an export of all your personal data: one JSON file, built in the background (one per 24 hours)",
  description: "Answers 202 with the pending export; read it with GET /t/data-exports/:id. A push `account.data_export_ready` follows.",
  failures: [e.EXPORT_RATE_LIMITED],
  responses: { 202: okResponse(s.DataExportCreated) },
});
dataExportRoutes.openapi(ownRoute, async (c) => {
  const ctx = tenantCtx(c);
  return ok(c, await requestExport(ctx, { userId: ctx.actor.userId, checkUser: false }), 202);
});

const userRoute = defineRoute({
  method: "post",
  path: "/t/users/{id}/data-export",
  gate: gates.admin,
  deny: "forbidden",
  audit: { none: "the export is a read of the person's data; the export row records who asked" },
  tags,
  summary: "Export a member's personal data on their behalf (admin); the push goes to the admin (one per person per 24 hours)",
  request: { params: IdParams },
  failures: [e.USER_NOT_FOUND, e.EXPORT_RATE_LIMITED],
  responses: { 202: okResponse(s.DataExportCreated) },
});
dataExportRoutes.openapi(userRoute, async (c) => ok(c, await requestExport(tenantCtx(c), { userId: c.req.valid("param").id, checkUser: true }), 202));

const getRoute = defineRoute({
  method: "get",
  path: "/t/data-exports/{id}",
  gate: gates.member,
  billing: "whitelisted",
  tags,
  summary: "An export: its state and, when ready, a signed download link (the requester or an admin)",
  request: { params: IdParams },
  failures: [e.DATA_EXPORT_NOT_FOUND],
  responses: { 200: okResponse(s.DataExport) },
});
dataExportRoutes.openapi(getRoute, async (c) => ok(c, await getExport(tenantCtx(c), { id: c.req.valid("param").id })));

const downloadRoute = defineRoute({
  method: "get",
  path: "/data-exports/{id}/download",
  gate: gates.public,
  tags,
  summary: "The export's file behind a signed download link (links come from GET /t/data-exports/:id and expire within the hour)",
  request: { params: IdParams, query: s.DownloadQuery },
  failures: [e.DATA_EXPORT_NOT_FOUND, e.LINK_EXPIRED],
  responses: {
    200: { description: "The JSON document", content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary", description: "a JSON document (served as application/json)" }) } } },
  },
});
dataExportRoutes.openapi(downloadRoute, async (c) => downloadExport(c.get("services"), { id: c.req.valid("param").id, ...c.req.valid("query") }));
