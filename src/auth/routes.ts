import { jsonBody, optionalJsonBody } from "../http/fields";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { createArea } from "../http/area";
import type { AppEnv } from "../http/context";
import { errorResponses, ok, okResponse } from "../http/envelope";
import { ApiError, unauthorized } from "../http/errors";
import { API_PREFIX, defineRoute } from "../http/route";
import { iso } from "../lib/clock";
import { emailLocale } from "../email/outbox";
import { replaceDevice } from "../devices/replacement-service";
import { deviceLimitConflictResponse, ReplaceBody as DeviceReplaceBody } from "../devices/schemas";
import { gates } from "./gates";
import { listSchoolsForEmail, login, profileOf } from "./login-service";
import { requestPasswordReset, resetPassword } from "./password-reset-service";
import { registerSchool, resendVerification, verifyEmail } from "./registration-service";
import * as s from "./schemas";
import { endSession, parseRefreshToken, refreshSession, type ClientInfo, type IssuedSession } from "./session-service";

export const authRoutes = createArea();


// ---------------------------------------------------------------------------------------------
// Browser or native (DESIGN.md): a browser's refresh secret lives only in an HttpOnly cookie
// scoped to the school and the device; a native client gets it in JSON.

const COOKIE_PATH = `${API_PREFIX}/auth`;
const COOKIE_PREFIX = "lms_rt_";

function clientInfo(c: Context<AppEnv>): ClientInfo {
  return {
    isBrowser: c.req.header("origin") !== undefined || c.req.header("sec-fetch-site") !== undefined,
    ip: c.req.header("cf-connecting-ip") ?? null,
    userAgent: c.req.header("user-agent") ?? null,
  };
}

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

function sessionPayload(c: Context<AppEnv>, session: IssuedSession, subdomain: string) {
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

function tenantSelector(c: Context<AppEnv>, bodySubdomain: string | undefined): string | undefined {
  const header = c.req.header("x-tenant-subdomain")?.trim().toLowerCase();
  return bodySubdomain ?? (header === undefined || header === "" ? undefined : header);
}

/**
 * Reads the selectors and the secret of refresh and logout, per client kind (spec errors in
 * order). Refresh without any token is 400 `refresh_token_required`; the spec gives logout only
 * 401 for a missing cookie, so a repeated browser logout (its cookie already cleared) is a 401.
 */
function refreshCredentials(
  c: Context<AppEnv>,
  body: { tenant_subdomain?: string; session_id?: string; auth_device_id?: string; refresh_token?: string },
  purpose: "refresh" | "logout",
) {
  const missingToken = () => (purpose === "refresh" ? new ApiError(400, "refresh_token_required") : unauthorized());
  const subdomain = tenantSelector(c, body.tenant_subdomain);
  if (clientInfo(c).isBrowser) {
    if (!body.session_id) throw new ApiError(400, "session_id_required");
    if (!body.auth_device_id) throw new ApiError(400, "auth_device_id_required");
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

const loginRoute = defineRoute({
  method: "post",
  path: "/auth/login",
  gate: gates.public,
  tags: ["Auth"],
  summary: "Sign in with email and password; creates a managed device session",
  request: jsonBody(s.LoginBody),
  responses: {
    200: okResponse(s.LoginResult),
    ...errorResponses({
      400: ["invalid credentials", "invalid_request_body"],
      403: ["email_not_verified", "device_blocked"],
      423: "too many attempts, try again later",
      503: "device_registration_failed",
    }),
    ...deviceLimitConflictResponse(["device_limit_reached", "installation_id_required"]),
  },
});

authRoutes.openapi(loginRoute, async (c) => {
  const body = c.req.valid("json");
  const result = await login(c.get("services"), { body, client: clientInfo(c) });
  return ok(c, { ...sessionPayload(c, result, body.subdomain ?? ""), user: result.user });
});

const replaceDeviceRoute = defineRoute({
  method: "post",
  path: "/auth/device-limit/replace",
  gate: gates.public,
  tags: ["Auth"],
  summary:
    "Finish a login refused by the device limit: revoke one listed device and sign the new one in (409 device_limit_reached carries the devices and the token in `data`, schema DeviceLimitErrorData)",
  request: jsonBody(DeviceReplaceBody),
  responses: {
    200: okResponse(s.LoginResult.extend({ revoked_device_id: z.string() })),
    ...errorResponses({
      400: "invalid_request_body",
      403: ["device_self_replacement_disabled", "device_blocked"],
      503: "device_registration_failed",
    }),
    ...deviceLimitConflictResponse(["invalid_device_replacement_token", "device_limit_reached"]),
  },
});

authRoutes.openapi(replaceDeviceRoute, async (c) => {
  const body = c.req.valid("json");
  const result = await replaceDevice(c.get("services"), {
    token: body.replacement_token,
    revokeDeviceId: body.revoke_device_id,
    subdomain: tenantSelector(c, body.tenant_subdomain),
    client: clientInfo(c),
  });
  return ok(c, { ...sessionPayload(c, result, result.subdomain), user: result.user, revoked_device_id: result.revokedDeviceId });
});

const refreshRoute = defineRoute({
  method: "post",
  path: "/auth/refresh",
  gate: gates.public,
  tags: ["Auth"],
  summary: "Rotate the refresh token and get a new access token",
  request: optionalJsonBody(s.RefreshBody),
  responses: {
    200: okResponse(s.SessionTokens),
    ...errorResponses({
      400: ["session_id_required", "auth_device_id_required", "refresh_token_required"],
      401: "unauthorized",
      409: "stale_refresh_token",
    }),
  },
});

authRoutes.openapi(refreshRoute, async (c) => {
  const credentials = refreshCredentials(c, c.req.valid("json"), "refresh");
  const session = await refreshSession(c.get("services"), credentials);
  const subdomain = credentials.cookieName ? cookieSubdomain(credentials.cookieName) : "";
  return ok(c, sessionPayload(c, session, subdomain));
});

function cookieSubdomain(name: string): string {
  const middle = name.slice(COOKIE_PREFIX.length, name.lastIndexOf("_"));
  return middle === "platform" ? "" : middle;
}

const logoutRoute = defineRoute({
  method: "post",
  path: "/auth/logout",
  gate: gates.public,
  tags: ["Auth"],
  summary: "End the current session and clear the selected refresh cookie",
  request: optionalJsonBody(s.RefreshBody),
  responses: {
    200: okResponse(s.LogoutResult),
    ...errorResponses({ 400: ["session_id_required", "auth_device_id_required"], 401: "unauthorized" }),
  },
});

authRoutes.openapi(logoutRoute, async (c) => {
  const credentials = refreshCredentials(c, c.req.valid("json"), "logout");
  await endSession(c.get("services"), credentials);
  if (credentials.cookieName) deleteCookie(c, credentials.cookieName, { path: COOKIE_PATH, secure: true, httpOnly: true, sameSite: "Lax" });
  return ok(c, { logged_out: true as const });
});

const registerRoute = defineRoute({
  method: "post",
  path: "/auth/register",
  gate: gates.public,
  tags: ["Auth"],
  summary: "Register a school (pending, trial) with its first admin",
  request: jsonBody(s.RegisterBody),
  responses: {
    201: okResponse(s.RegisterResult),
    ...errorResponses({ 400: ["duplicate key", "invalid_request_body"] }),
  },
});

authRoutes.openapi(registerRoute, async (c) => {
  const ctx = c.get("services");
  const result = await registerSchool(ctx, {
    body: c.req.valid("json"),
    locale: emailLocale(c.req.header("accept-language"), ctx.config.defaultEmailLocale),
  });
  return ok(c, result, 201);
});

const verifyEmailRoute = defineRoute({
  method: "post",
  path: "/auth/verify-email",
  gate: gates.public,
  errors: { body: "invalid_or_expired_email_verification" },
  tags: ["Auth"],
  summary: "Confirm the admin's email with the single-use token; activates the school",
  request: jsonBody(s.VerifyEmailBody),
  responses: { 200: okResponse(s.VerifyEmailResult), ...errorResponses({ 400: "invalid_or_expired_email_verification" }) },
});

authRoutes.openapi(verifyEmailRoute, async (c) => ok(c, await verifyEmail(c.get("services"), c.req.valid("json"))));

const resendRoute = defineRoute({
  method: "post",
  path: "/auth/resend-verification",
  gate: gates.public,
  tags: ["Auth"],
  summary: "Send a new verification link (neutral answer, one-minute cooldown)",
  request: jsonBody(s.ResendVerificationBody),
  responses: { 200: okResponse(s.MessageResult), ...errorResponses({ 400: "invalid_request_body" }) },
});

authRoutes.openapi(resendRoute, async (c) => {
  const ctx = c.get("services");
  const body = c.req.valid("json");
  return ok(c, await resendVerification(ctx, { ...body, locale: emailLocale(c.req.header("accept-language"), ctx.config.defaultEmailLocale) }));
});

const forgotRoute = defineRoute({
  method: "post",
  path: "/auth/forgot-password",
  gate: gates.public,
  errors: { body: "validation error" },
  tags: ["Auth"],
  summary: "Issue a 6-digit password-reset code (valid 15 minutes)",
  request: jsonBody(s.ForgotPasswordBody),
  responses: {
    200: okResponse(s.MessageResult),
    ...errorResponses({ 400: "validation error", 404: "no account with this email and school" }),
  },
});

authRoutes.openapi(forgotRoute, async (c) => {
  const ctx = c.get("services");
  const body = c.req.valid("json");
  const locale = emailLocale(c.req.header("accept-language"), ctx.config.defaultEmailLocale);
  return ok(c, await requestPasswordReset(ctx, { email: body.email, subdomain: body.subdomain ?? "", locale }));
});

const resetRoute = defineRoute({
  method: "post",
  path: "/auth/reset-password",
  gate: gates.public,
  errors: { body: "validation error" },
  tags: ["Auth"],
  summary: "Set a new password with the confirmation code",
  request: jsonBody(s.ResetPasswordBody),
  responses: {
    200: okResponse(s.MessageResult),
    ...errorResponses({
      400: ["invalid or expired confirmation code", "validation error"],
      423: "too many attempts, request a new code",
    }),
  },
});

authRoutes.openapi(resetRoute, async (c) => {
  const body = c.req.valid("json");
  return ok(
    c,
    await resetPassword(c.get("services"), { email: body.email, subdomain: body.subdomain ?? "", code: body.code, newPassword: body.new_password }),
  );
});

const schoolsRoute = defineRoute({
  method: "post",
  path: "/auth/schools",
  gate: gates.public,
  tags: ["Auth"],
  summary: "Active schools where an email has an account (school picker)",
  request: jsonBody(s.SchoolsBody),
  responses: { 200: okResponse(s.SchoolsResult), ...errorResponses({ 400: "invalid_request_body" }) },
});

authRoutes.openapi(schoolsRoute, async (c) => ok(c, await listSchoolsForEmail(c.get("services"), c.req.valid("json"))));

const meRoute = defineRoute({
  method: "get",
  path: "/auth/me",
  gate: gates.authenticated,
  tags: ["Auth"],
  summary: "The signed-in user's profile (school users add the billing summary)",
  security: [{ bearer: [] }],
  responses: { 200: okResponse(s.MeResult), ...errorResponses({ 401: "unauthorized" }) },
});

authRoutes.openapi(meRoute, (c) => ok(c, profileOf(c.get("actor")!, c.get("services").clock.now())));
