import type { Context } from "hono";
import type { AppEnv } from "../../core/http/context";
import type { ClientInfo } from "./session-service";

/**
 * The caller as a session and its history record it: browser or native (docs/decisions/auth.md, "Sessions and tokens"), address
 * and user agent. Beside the session service, since the device routes (revocations) need it as
 * much as auth's sign-in, refresh and logout (docs/decisions/platform-layers.md, "Sessions live in
 * devices").
 */
export function clientInfo(c: Context<AppEnv>): ClientInfo {
  return {
    isBrowser: c.req.header("origin") !== undefined || c.req.header("sec-fetch-site") !== undefined,
    ip: c.req.header("cf-connecting-ip") ?? null,
    // Capped once here: every session row and history event stores it as received.
    userAgent: c.req.header("user-agent")?.slice(0, 512) ?? null,
  };
}
