import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "./context";

/**
 * Responses a shared cache may keep: the liveness probe, the API document and the reference page's
 * assets. Everything else may carry a token or personal data and is `no-store`.
 */
const CACHEABLE = [/^\/api\/v1\/health$/, /^\/api\/v1\/openapi\.json$/, /^\/api\/v1\/docs(\/.*)?$/];

/**
 * Defensive headers on every response. A JSON API needs no content policy beyond "load nothing";
 * the reference page sets its own. HSTS only over https (the local dev server speaks http).
 */
export function securityHeaders(): MiddlewareHandler<AppEnv> {
  const base = secureHeaders({
    strictTransportSecurity: false,
    xFrameOptions: "DENY",
    referrerPolicy: "no-referrer",
    // Signed media links are embedded by the school's web app on another subdomain.
    crossOriginResourcePolicy: false,
    crossOriginEmbedderPolicy: false,
    contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
  });
  return async (c, next) => {
    await base(c, next);
    if (new URL(c.req.url).protocol === "https:") c.header("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
    if (!CACHEABLE.some((pattern) => pattern.test(c.req.path)) && !c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  };
}
