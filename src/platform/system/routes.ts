import { z } from "@hono/zod-openapi";
import { gates } from "../../core/http/gates";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { defineRoute } from "../../core/http/route";
import { REFERENCE_UI_CSS, REFERENCE_UI_JS, REFERENCE_UI_VERSION } from "../../../generated/reference-ui";

export const systemRoutes = createArea();

const health = defineRoute({
  method: "get",
  path: "/health",
  gate: gates.public,
  tags: ["System"],
  summary: "Liveness probe (no I/O)",
  responses: { 200: okResponse(z.object({ status: z.literal("ok") })) },
});

systemRoutes.openapi(health, (c) => ok(c, { status: "ok" as const }));

/**
 * The interactive reference: Swagger UI from the pinned npm package, served by the Worker itself
 * (no CDN, works offline). Its assets are versioned in the path, so they can be cached for good.
 */
const ASSETS = `/docs/assets/${REFERENCE_UI_VERSION}`;
const IMMUTABLE = "public, max-age=31536000, immutable";
/** The page loads only its own script, stylesheet and the document; Swagger UI needs inline styles and data: images. */
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <title>Learning platform API reference</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="stylesheet" href="/api/v1${ASSETS}/swagger-ui.css" />
  </head>
  <body>
    <div id="reference"></div>
    <script src="/api/v1${ASSETS}/swagger-ui-bundle.js"></script>
    <script src="/api/v1${ASSETS}/start.js"></script>
  </body>
</html>`;

/** Inline scripts would need a weaker policy, so the start-up call is a file of its own. */
const START = `window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#reference", deepLinking: true, persistAuthorization: true });\n`;

systemRoutes.get("/docs", (c) => {
  c.header("Content-Security-Policy", DOCS_CSP);
  return c.html(PAGE);
});

const assets: Record<string, { type: string; body: string }> = {
  "swagger-ui-bundle.js": { type: "text/javascript; charset=utf-8", body: REFERENCE_UI_JS },
  "swagger-ui.css": { type: "text/css; charset=utf-8", body: REFERENCE_UI_CSS },
  "start.js": { type: "text/javascript; charset=utf-8", body: START },
};

systemRoutes.get(`${ASSETS}/:file`, (c) => {
  const asset = assets[c.req.param("file")];
  if (!asset) return c.notFound();
  return c.body(asset.body, 200, { "Content-Type": asset.type, "Cache-Control": IMMUTABLE });
});
