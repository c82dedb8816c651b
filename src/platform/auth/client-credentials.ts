import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../../core/http/context";
import { ApiError, unauthorized } from "../../core/http/errors";
import { API_PREFIX } from "../../core/http/route";
import { iso } from "../../core/lib/clock";
import { authErrors } from "./errors";
import { clientInfo } from "../devices/client-info";
import { parseRefreshToken, type IssuedSession } from "../devices/session-service";

/*
 * Browser or native (docs/decisions/architecture.md, "Architecture"): a request is a browser's when it carries Origin or
 * Sec-Fetch-Site. A browser's refresh secret lives only in an HttpOnly cookie scoped to the school
 * and the device; a native client gets it in JSON. Everything HTTP-specific about that is here.
 */

const COOKIE_PATH = `${API_PREFIX}/auth`;
const COOKIE_PREFIX = "lms_rt_";

function cookieName(subdomain: string, authDeviceId: string): string {
  return `${COOKIE_PREFIX}${subdomain || "platform"}_${authDeviceId.replaceAll("-", "")}`;
}

function refreshCookies(c: Context<AppEnv>): Record<string, string> {
  return Object.fromEntries(Object.entries(getCookie(c)).filter(([name]) => name.startsWith(COOKIE_PREFIX)));
}

/**
 * The refresh cookie the selectors point at. With no school named, the device id alone must pick
 * exactly one cookie; a missing or ambiguous match is a 401.
 */
function selectedCookie(c: Context<AppEnv>, subdomain: string | undefined, authDeviceId: string): { name: string; value: string } {
  const cookies = refreshCookies(c);
  if (subdomain !== undefined) {
    const name = cookieName(subdomain, authDeviceId);
    const value = cookies[name];
    if (value === undefined) throw unauthorized();
    return { name, value };
  }
  const suffix = `_${authDeviceId.replaceAll("-", "")}`;
  const matches = Object.entries(cookies).filter(([name]) => name.endsWith(suffix));
  if (matches.length !== 1) throw unauthorized();
  return { name: matches[0]![0], value: matches[0]![1] };
}

export function sessionPayload(c: Context<AppEnv>, session: IssuedSession, subdomain: string) {
  const payload = {
    token: session.token,
    access_expires_at: iso(session.accessExpiresAt),
    refresh_expires_at: iso(session.refreshExpiresAt),
    session_id: session.sessionId,
    auth_device_id: session.authDeviceId,
  };
  if (!clientInfo(c).isBrowser) return { ...payload, refresh_token: session.refreshToken };
  setCookie(c, cookieName(subdomain, session.authDeviceId), session.refreshToken, {
    httpOnly: true,
    secure: true,
    sameSite: "Lax",
    path: COOKIE_PATH,
    maxAge: Math.max(0, Math.floor((session.refreshExpiresAt - c.get("services").clock.now()) / 1000)),
  });
  return payload;
}

export function tenantSelector(c: Context<AppEnv>, bodySubdomain: string | undefined): string | undefined {
  const header = c.req.header("x-tenant-subdomain")?.trim().toLowerCase();
  return bodySubdomain ?? (header === undefined || header === "" ? undefined : header);
}

/**
 * Reads the selectors and the secret of refresh and logout, per client kind (spec errors in
 * order). Refresh without any token is 400 `refresh_token_required`; the spec gives logout only
 * 401 for a missing cookie, so a repeated browser logout (its cookie already cleared) is a 401.
 */
export function refreshCredentials(
  c: Context<AppEnv>,
  body: { tenant_subdomain?: string; session_id?: string; auth_device_id?: string; refresh_token?: string },
  purpose: "refresh" | "logout",
) {
  const missingToken = () => (purpose === "refresh" ? new ApiError(authErrors.REFRESH_TOKEN_REQUIRED) : unauthorized());
  const subdomain = tenantSelector(c, body.tenant_subdomain);
  if (clientInfo(c).isBrowser) {
    if (!body.session_id) throw new ApiError(authErrors.SESSION_ID_REQUIRED);
    if (!body.auth_device_id) throw new ApiError(authErrors.AUTH_DEVICE_ID_REQUIRED);
    if (Object.keys(refreshCookies(c)).length === 0) throw missingToken();
    const cookie = selectedCookie(c, subdomain, body.auth_device_id);
    const parsed = parseRefreshToken(cookie.value);
    if (!parsed || parsed.sessionId !== body.session_id) throw unauthorized();
    return { ...parsed, authDeviceId: body.auth_device_id, subdomain, cookieName: cookie.name, client: clientInfo(c) };
  }
  if (!body.refresh_token) throw missingToken();
  const parsed = parseRefreshToken(body.refresh_token);
  if (!parsed || (body.session_id !== undefined && parsed.sessionId !== body.session_id)) throw unauthorized();
  return { ...parsed, authDeviceId: body.auth_device_id, subdomain, cookieName: null, client: clientInfo(c) };
}

// ---------------------------------------------------------------------------------------------

export function cookieSubdomain(name: string): string {
  const middle = name.slice(COOKIE_PREFIX.length, name.lastIndexOf("_"));
  return middle === "platform" ? "" : middle;
}

/** Clears the refresh cookie a logout ended. */
export function clearRefreshCookie(c: Context<AppEnv>, name: string): void {
  deleteCookie(c, name, { path: COOKIE_PATH, secure: true, httpOnly: true, sameSite: "Lax" });
}
