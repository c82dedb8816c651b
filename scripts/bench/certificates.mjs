/**
 * The bench of the public verify route (issue 35): the demo certificate looked up by its code,
 * without a token or tenant. The route allows 30 look-ups a minute per client address, so each
 * request comes from its own address (`CF-Connecting-IP`, which the local runtime keeps when a
 * request sets it); the bench measures the look-up, not the limiter's 429.
 */
import { DEMO_CERTIFICATE } from "../seed/certificates.mjs";

export const VERIFY_ENDPOINT = {
  name: "GET /api/v1/verify/:code (public, one address per request)",
  method: "GET",
  path: `/api/v1/verify/${DEMO_CERTIFICATE.code.toLowerCase()}`,
  headers: (_sessions, n) => ({ "cf-connecting-ip": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` }),
};
