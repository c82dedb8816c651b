import { z } from "@hono/zod-openapi";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { requestLocale } from "../../platform/email/request-locale";
import { applyImport } from "./apply";
import { importsErrors as e } from "./errors";
import * as s from "./schemas";
import { createImport, getImport, importErrorsCsv, listImportRows } from "./service";

/** Roster imports with a dry run (05 section 3, docs/decisions/imports.md). */
export const importRoutes = createArea();

const tags = ["Imports"];
/** The import's creator or an admin; anyone else gets 404, as for an unknown import. */
const ownerOrAdmin = { gate: gates.member } as const;

const createRoute = defineRoute({
  method: "post",
  path: "/t/imports",
  gate: gates.permission("can_manage_students"),
  deny: "forbidden",
  errors: { query: "invalid_import_kind" },
  tags,
  summary: "Upload a CSV roster: validated into a plan (a dry run), nothing else is written",
  description:
    "kind=users|enrollments (can_manage_students) or group_members (also can_manage_groups). Body: the CSV text (Content-Type: text/csv, UTF-8, optional BOM, comma or semicolon), up to 5 MB and 5,000 data rows.",
  request: {
    query: s.ImportQuery,
    body: { required: true, content: { "text/csv": { schema: z.string().openapi({ example: "email,first_name,last_name\nanna@example.com,Anna,Ivanova\n" }) } } },
  },
  failures: [e.IMPORT_EMPTY, e.IMPORT_TOO_LARGE, e.IMPORT_MISSING_COLUMNS, e.UNSUPPORTED_MEDIA_TYPE],
  audit: { none: "a dry run writes only the plan; the apply writes import.applied" },
  responses: { 201: okResponse(s.Import) },
});
importRoutes.openapi(createRoute, async (c) =>
  ok(c, await createImport(tenantCtx(c), { kind: c.req.valid("query").kind, contentType: c.req.header("content-type"), body: await c.req.arrayBuffer() }), 201),
);

const getRoute = defineRoute({
  method: "get",
  path: "/t/imports/{id}",
  ...ownerOrAdmin,
  tags,
  summary: "An import: its status, counts, plan_hash and the first 50 rows",
  request: { params: IdParams },
  failures: [e.IMPORT_NOT_FOUND],
  responses: { 200: okResponse(s.Import) },
});
importRoutes.openapi(getRoute, async (c) => ok(c, await getImport(tenantCtx(c), { id: c.req.valid("param").id })));

const rowsRoute = defineRoute({
  method: "get",
  path: "/t/imports/{id}/rows",
  ...ownerOrAdmin,
  tags,
  summary: "The plan's rows, by action",
  request: { params: IdParams, query: s.RowsQuery },
  failures: [e.IMPORT_NOT_FOUND],
  responses: { 200: okResponse(s.ImportRows) },
});
importRoutes.openapi(rowsRoute, async (c) => ok(c, await listImportRows(tenantCtx(c), { id: c.req.valid("param").id, query: c.req.valid("query") })));

const errorsRoute = defineRoute({
  method: "get",
  path: "/t/imports/{id}/errors.csv",
  ...ownerOrAdmin,
  tags,
  summary: "The error rows as CSV (the original columns plus error), UTF-8 with a BOM",
  request: { params: IdParams },
  failures: [e.IMPORT_NOT_FOUND],
  responses: { 200: { description: "The CSV file", content: { "text/csv": { schema: z.string() } } } },
});
importRoutes.openapi(errorsRoute, async (c) => importErrorsCsv(tenantCtx(c), { id: c.req.valid("param").id }));

const applyRoute = defineRoute({
  method: "post",
  path: "/t/imports/{id}/apply",
  ...ownerOrAdmin,
  tags,
  summary: "Apply the plan: re-validated against the data now, written in batches of 500 rows; new users get an invitation",
  request: { params: IdParams, ...jsonBody(s.ApplyBody) },
  failures: [e.IMPORT_NOT_FOUND, e.IMPORT_HAS_ERRORS, e.IMPORT_ALREADY_APPLIED, e.IMPORT_PLAN_STALE, e.IMPORT_EXPIRED],
  audit: { actions: ["import.applied"] },
  responses: { 200: okResponse(s.Import) },
});
importRoutes.openapi(applyRoute, async (c) =>
  ok(c, await applyImport(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json"), locale: requestLocale(c) })),
);
