import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "./context";

/**
 * Responses a shared cache may keep: the liveness probe, the API document and the reference page's
 * assets. Everything else may carry a token or personal data and is `no-store`.
 */
const CACHEABLE = [/^\/api\/v1\/health$/, /^\/api\/v1\/openapi\.json$/, /^\/api\/v1\/docs(\/.*)?$/];

const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

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
  });
  return async (c, next) => {
    await base(c, next);
    // A page that loads something (the API reference) sets its own policy.
    if (!c.res.headers.has("Content-Security-Policy")) c.header("Content-Security-Policy", API_CSP);
    if (new URL(c.req.url).protocol === "https:") c.header("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
    if (!CACHEABLE.some((pattern) => pattern.test(c.req.path)) && !c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  };
}
