import type { Context } from "hono";
import type { AppEnv } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { certificatesErrors as e } from "./errors";

/**
 * 30 verify look-ups per minute per client address (05 section 4), counted by the Workers rate
 * limiting binding (no D1 work, no state of ours). Its windows are whole minutes, so Retry-After
 * is the time left in the current one (docs/decisions/certificates.md, "Verification").
 */
export async function verifyLimit(c: Context<AppEnv>): Promise<void> {
  const address = c.req.header("CF-Connecting-IP") ?? "unknown";
  const { success } = await c.env.CERT_VERIFY_LIMITER.limit({ key: `verify:${address}` });
  if (success) return;
  const now = c.get("services").clock.now();
  throw new ApiError(e.RATE_LIMITED, { headers: { "Retry-After": String(60 - (Math.floor(now / 1000) % 60)) } });
}
