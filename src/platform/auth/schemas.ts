import { emailField, plainText, uuidField } from "../../core/http/fields";
import { z } from "@hono/zod-openapi";

const email = emailField;
/** Latin letters and digits; empty means the platform (superadmin). */
const optionalSubdomain = z
  .string()
  .trim()
  .max(100)
  .regex(/^[A-Za-z0-9]*$/, "Latin letters and digits only")
  .transform((value) => value.toLowerCase())
  .optional()
  .openapi({ example: "demo" });
const uuid = uuidField;
const password = z.string().min(8).max(256);
/** Device details the client reports; admins read them in the inventory, so no control or bidi characters. */
const short = (max: number) => plainText({ max }).optional();

export const LoginBody = z
  .object({
    email,
    password: z.string().min(1).max(256),
    subdomain: optionalSubdomain,
    device_token: z.string().min(1).max(4096).optional(),
    installation_id: plainText({ min: 1, max: 255 }).optional(),
    device_platform: z.enum(["web", "ios", "android"]).optional(),
    device_name: short(120),
    os_name: short(64),
    os_version: short(64),
    browser_name: short(64),
    browser_version: short(64),
    app_version: short(64),
  })
  .openapi("LoginRequest");

const UserBrief = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(["superadmin", "admin", "curator", "student"]),
  first_name: z.string(),
  last_name: z.string(),
});

export const SessionTokens = z
  .object({
    token: z.string(),
    access_expires_at: z.string(),
    refresh_expires_at: z.string(),
    session_id: z.string(),
    auth_device_id: z.string(),
    refresh_token: z.string().optional().openapi({ description: "Native clients only; browsers get an HttpOnly cookie" }),
  })
  .openapi("SessionTokens");

export const LoginResult = SessionTokens.extend({ user: UserBrief }).openapi("LoginResult");

/** Selectors and the native token; all optional in the schema because which are required depends on the client kind. */
export const RefreshBody = z
  .object({
    tenant_subdomain: optionalSubdomain,
    session_id: uuid.optional(),
    auth_device_id: uuid.optional(),
    refresh_token: z.string().min(1).max(512).optional(),
  })
  .openapi("RefreshRequest");

export const LogoutResult = z.object({ logged_out: z.literal(true) });

const name = plainText({ min: 1, max: 100 });
const slug = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9]{2,100}$/, "2-100 Latin letters or digits")
  .transform((value) => value.toLowerCase());

export const RegisterBody = z
  .object({
    tenant_title: plainText({ min: 2, max: 255 }),
    tenant_slug: slug,
    tenant_subdomain: slug.optional(),
    email,
    password,
    first_name: name,
    last_name: name,
  })
  .openapi("RegisterRequest");

export const RegisterResult = z.object({
  verification_required: z.boolean(),
  email: z.string(),
  verification_expires_at: z.string(),
});

export const VerifyEmailBody = z.object({ token: z.string().min(1).max(512) }).openapi("VerifyEmailRequest");

export const VerifyEmailResult = z.object({
  login_required: z.literal(true),
  tenant_subdomain: z.string(),
  user: z.object({ id: z.string(), email: z.string(), role: z.string() }),
  token: z.string().optional().openapi({ description: "Legacy compatibility; only when LEGACY_TOKEN_MODE=allow" }),
});

export const ResendVerificationBody = z
  .object({ email, subdomain: z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9]+$/).transform((v) => v.toLowerCase()) })
  .openapi("ResendVerificationRequest");

export const MessageResult = z.object({ message: z.string() });

export const ForgotPasswordBody = z.object({ email, subdomain: optionalSubdomain }).openapi("ForgotPasswordRequest");

export const ResetPasswordBody = z
  .object({
    email,
    subdomain: optionalSubdomain,
    code: z.string().regex(/^\d{6}$/, "6 digits"),
    new_password: password,
  })
  .openapi("ResetPasswordRequest");

export const SchoolsBody = z.object({ email, scope: z.enum(["admin", "student", ""]).optional() }).openapi("SchoolsRequest");

export const SchoolsResult = z.array(z.object({ subdomain: z.string(), title: z.string(), role: z.string() }));

export const MeResult = z
  .object({
    id: z.string(),
    email: z.string(),
    role: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    tenant: z.object({ plan_state: z.string(), expires_at: z.string().nullable(), days_remaining: z.number().int() }).optional(),
  })
  .openapi("Me");
