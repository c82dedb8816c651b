import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { gates } from "../../core/http/gates";
import { defineRoute } from "../../core/http/route";
import { certificatesErrors as e } from "./errors";
import { verifyLimit } from "./rate-limit";
import * as s from "./schemas";
import { publicJwks } from "./signing";
import { verifyCertificate } from "./verify";

/** The public side of certificates (05 section 4): no token, no school. */
export const certificatePublicRoutes = createArea();

const tags = ["Certificates"];

const verifyRoute = defineRoute({
  method: "get",
  path: "/verify/{code}",
  gate: gates.public,
  tags,
  summary: "Check a certificate code (dashes and case ignored); cacheable for a minute",
  description: "At most 30 look-ups per minute per client address: then 429 rate_limited with Retry-After.",
  request: { params: s.CodeParams },
  failures: [e.CERTIFICATE_NOT_FOUND, e.RATE_LIMITED],
  responses: { 200: okResponse(s.Verification) },
});
certificatePublicRoutes.openapi(verifyRoute, async (c) => {
  await verifyLimit(c);
  const result = await verifyCertificate(c.get("services"), { code: c.req.valid("param").code });
  c.header("Cache-Control", "public, max-age=60");
  return ok(c, result);
});

const jwksRoute = defineRoute({
  method: "get",
  path: "/.well-known/jwks.json",
  gate: gates.public,
  tags,
  summary: "The public keys certificate tokens are signed with (one per kid; retired keys stay listed)",
  responses: { 200: { description: "A JSON Web Key Set", content: { "application/json": { schema: s.Jwks } } } },
});
certificatePublicRoutes.openapi(jwksRoute, (c) => {
  c.header("Cache-Control", "public, max-age=3600");
  return c.json(publicJwks(c.env), 200);
});
