import { jsonBody, optionalJsonBody } from "../../core/http/fields";
import { z } from "@hono/zod-openapi";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { coreErrors } from "../../core/http/errors";
import { defineRoute } from "../../core/http/route";
import { requestLocale } from "../email/request-locale";
import { replaceDevice } from "../devices/replacement-service";
import { devicesErrors } from "../devices/errors";
import { deviceLimitConflictResponse, ReplaceBody as DeviceReplaceBody } from "../devices/schemas";
import { gates } from "../../core/http/gates";
import { authErrors } from "./errors";
import { listSchoolsForEmail, login, profileOf } from "./login-service";
import { requestPasswordReset, resetPassword } from "./password-reset-service";
import { registerSchool, resendVerification, verifyEmail } from "./registration-service";
import * as s from "./schemas";
import { clearRefreshCookie, cookieSubdomain, refreshCredentials, sessionPayload, tenantSelector } from "./client-credentials";
import { clientInfo } from "../devices/client-info";
import { endSession, refreshSession } from "../devices/session-service";

export const authRoutes = createArea();

const loginRoute = defineRoute({
  method: "post",
  path: "/auth/login",
  audit: { none: "sign-in; recorded in the security history (device_events), not the staff log" },
  cookieFlow: true,
  gate: gates.public,
  tags: ["Auth"],
  summary: "Sign in with email and password; creates a managed device session",
  request: jsonBody(s.LoginBody),
  failures: [
    authErrors.INVALID_CREDENTIALS,
    authErrors.EMAIL_NOT_VERIFIED,
    authErrors.SIGN_IN_LOCKED,
    devicesErrors.DEVICE_BLOCKED,
    devicesErrors.DEVICE_LIMIT_REACHED,
    devicesErrors.INSTALLATION_ID_REQUIRED,
    devicesErrors.DEVICE_REGISTRATION_FAILED,
  ],
  // The 409 is written out for its schema: device_limit_reached carries the device list in `data`.
  responses: { 200: okResponse(s.LoginResult), ...deviceLimitConflictResponse(["device_limit_reached", "installation_id_required"]) },
});

authRoutes.openapi(loginRoute, async (c) => {
  const body = c.req.valid("json");
  const result = await login(c.get("services"), { body, client: clientInfo(c) });
  return ok(c, { ...sessionPayload(c, result, body.subdomain ?? ""), user: result.user });
});

const replaceDeviceRoute = defineRoute({
  method: "post",
  path: "/auth/device-limit/replace",
  audit: { actions: ["device.replaced"] },
  cookieFlow: true,
  gate: gates.public,
  tags: ["Auth"],
  summary:
    "Finish a login refused by the device limit: revoke one listed device and sign the new one in (409 device_limit_reached carries the devices and the token in `data`, schema DeviceLimitErrorData)",
  request: jsonBody(DeviceReplaceBody),
  failures: [
    devicesErrors.SELF_REPLACEMENT_DISABLED,
    devicesErrors.DEVICE_BLOCKED,
    devicesErrors.INVALID_REPLACEMENT_TOKEN,
    devicesErrors.DEVICE_LIMIT_REACHED,
    devicesErrors.DEVICE_REGISTRATION_FAILED,
  ],
  responses: {
    200: okResponse(s.LoginResult.extend({ revoked_device_id: z.string() })),
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
  audit: { none: "token rotation of the caller's own session" },
  cookieFlow: true,
  gate: gates.public,
  tags: ["Auth"],
  summary: "Rotate the refresh token and get a new access token",
  request: optionalJsonBody(s.RefreshBody),
  failures: [
    authErrors.SESSION_ID_REQUIRED,
    authErrors.AUTH_DEVICE_ID_REQUIRED,
    authErrors.REFRESH_TOKEN_REQUIRED,
    coreErrors.UNAUTHORIZED,
    devicesErrors.STALE_REFRESH_TOKEN,
  ],
  responses: { 200: okResponse(s.SessionTokens) },
});

authRoutes.openapi(refreshRoute, async (c) => {
  const credentials = refreshCredentials(c, c.req.valid("json"), "refresh");
  const session = await refreshSession(c.get("services"), credentials);
  const subdomain = credentials.cookieName ? cookieSubdomain(credentials.cookieName) : "";
  return ok(c, sessionPayload(c, session, subdomain));
});

const logoutRoute = defineRoute({
  method: "post",
  path: "/auth/logout",
  audit: { none: "the caller ends their own session" },
  cookieFlow: true,
  gate: gates.public,
  tags: ["Auth"],
  summary: "End the current session and clear the selected refresh cookie",
  request: optionalJsonBody(s.RefreshBody),
  failures: [authErrors.SESSION_ID_REQUIRED, authErrors.AUTH_DEVICE_ID_REQUIRED, coreErrors.UNAUTHORIZED],
  responses: { 200: okResponse(s.LogoutResult) },
});

authRoutes.openapi(logoutRoute, async (c) => {
  const credentials = refreshCredentials(c, c.req.valid("json"), "logout");
  await endSession(c.get("services"), credentials);
  if (credentials.cookieName) clearRefreshCookie(c, credentials.cookieName);
  return ok(c, { logged_out: true as const });
});

const registerRoute = defineRoute({
  method: "post",
  path: "/auth/register",
  audit: { none: "self-registration of a new school and its first admin; no school log exists before it" },
  gate: gates.public,
  tags: ["Auth"],
  summary: "Register a school (pending, trial) with its first admin",
  request: jsonBody(s.RegisterBody),
  failures: [authErrors.SCHOOL_OR_EMAIL_TAKEN],
  responses: { 201: okResponse(s.RegisterResult) },
});

authRoutes.openapi(registerRoute, async (c) =>
  ok(c, await registerSchool(c.get("services"), { body: c.req.valid("json"), locale: requestLocale(c) }), 201),
);

const verifyEmailRoute = defineRoute({
  method: "post",
  path: "/auth/verify-email",
  audit: { none: "the account owner confirms their own address" },
  gate: gates.public,
  errors: { body: authErrors.INVALID_EMAIL_VERIFICATION.code },
  tags: ["Auth"],
  summary: "Confirm the admin's email with the single-use token; activates the school",
  request: jsonBody(s.VerifyEmailBody),
  failures: [authErrors.INVALID_EMAIL_VERIFICATION],
  responses: { 200: okResponse(s.VerifyEmailResult) },
});

authRoutes.openapi(verifyEmailRoute, async (c) => ok(c, await verifyEmail(c.get("services"), c.req.valid("json"))));

const resendRoute = defineRoute({
  method: "post",
  path: "/auth/resend-verification",
  audit: { none: "an email to the account owner; nothing in the school changes" },
  gate: gates.public,
  tags: ["Auth"],
  summary: "Send a new verification link (neutral answer, one-minute cooldown)",
  request: jsonBody(s.ResendVerificationBody),
  responses: { 200: okResponse(s.MessageResult) },
});

authRoutes.openapi(resendRoute, async (c) =>
  ok(c, await resendVerification(c.get("services"), { ...c.req.valid("json"), locale: requestLocale(c) })),
);

const forgotRoute = defineRoute({
  method: "post",
  path: "/auth/forgot-password",
  audit: { none: "an email to the account owner; nothing in the school changes" },
  gate: gates.public,
  errors: { body: authErrors.PASSWORD_RESET_VALIDATION.code },
  tags: ["Auth"],
  summary: "Issue a 6-digit password-reset code (valid 15 minutes)",
  request: jsonBody(s.ForgotPasswordBody),
  failures: [authErrors.NO_ACCOUNT_FOR_RESET],
  responses: { 200: okResponse(s.MessageResult) },
});

authRoutes.openapi(forgotRoute, async (c) => {
  const body = c.req.valid("json");
  return ok(c, await requestPasswordReset(c.get("services"), { email: body.email, subdomain: body.subdomain ?? "", locale: requestLocale(c) }));
});

const resetRoute = defineRoute({
  method: "post",
  path: "/auth/reset-password",
  audit: { none: "the account owner sets their own password (a secret; the security history records the sessions it ends)" },
  gate: gates.public,
  errors: { body: authErrors.PASSWORD_RESET_VALIDATION.code },
  tags: ["Auth"],
  summary: "Set a new password with the confirmation code",
  request: jsonBody(s.ResetPasswordBody),
  failures: [authErrors.INVALID_RESET_CODE, authErrors.RESET_CODE_BLOCKED],
  responses: { 200: okResponse(s.MessageResult) },
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
  audit: { none: "read-only lookup of the schools of an email" },
  gate: gates.public,
  tags: ["Auth"],
  summary: "Active schools where an email has an account (school picker)",
  request: jsonBody(s.SchoolsBody),
  responses: { 200: okResponse(s.SchoolsResult) },
});

authRoutes.openapi(schoolsRoute, async (c) => ok(c, await listSchoolsForEmail(c.get("services"), c.req.valid("json"))));

const meRoute = defineRoute({
  method: "get",
  path: "/auth/me",
  gate: gates.authenticated,
  tags: ["Auth"],
  summary: "The signed-in user's profile (school users add the billing summary)",
  responses: { 200: okResponse(s.MeResult) },
});

authRoutes.openapi(meRoute, (c) => ok(c, profileOf(c.get("actor")!, c.get("services").clock.now())));
