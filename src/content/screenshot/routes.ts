import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { defineRoute, tenantCtx } from "../../core/http/route";
import * as s from "./schemas";
import { screenshotSettings, updateScreenshotProtection } from "./service";

/** The school-wide screenshot policy over lessons, quizzes, assignments and exams. */
export const screenshotRoutes = createArea();

const TAGS = ["Schools"];

const getSettingsRoute = defineRoute({
  method: "get",
  path: "/t/tenant/screenshot-protection",
  gate: gates.admin,
  tags: TAGS,
  summary: "How many live lessons, quizzes, assignments and exams allow or block screenshots",
  responses: { 200: okResponse(s.ScreenshotSettings) },
});

screenshotRoutes.openapi(getSettingsRoute, async (c) => ok(c, await screenshotSettings(tenantCtx(c))));

const patchSettingsRoute = defineRoute({
  method: "patch",
  path: "/t/tenant/screenshot-protection",
  gate: gates.admin,
  // The contract spells this endpoint's body failure as the school endpoints do.
  errors: { body: "validation error" },
  tags: TAGS,
  summary: "Block or allow screenshots on every live object of one content type",
  request: jsonBody(s.ScreenshotUpdateBody),
  responses: { 200: okResponse(s.ScreenshotUpdateResult) },
});

screenshotRoutes.openapi(patchSettingsRoute, async (c) => ok(c, await updateScreenshotProtection(tenantCtx(c), { body: c.req.valid("json") })));
