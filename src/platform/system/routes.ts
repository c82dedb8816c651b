import { z } from "@hono/zod-openapi";
import { gates } from "../../core/http/gates";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { defineRoute } from "../../core/http/route";

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

/** An interactive reference rendered from /api/v1/openapi.json (the browser loads Scalar's script). */
systemRoutes.get("/docs", (c) =>
  c.html(`<!doctype html>
<html>
  <head>
    <title>Learning platform API reference</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" data-url="/api/v1/openapi.json"></script>
    <script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference"></script>
  </body>
</html>`),
);
