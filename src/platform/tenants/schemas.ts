import { z } from "@hono/zod-openapi";
import { mediaReference, plainText } from "../../core/http/fields";
import { isKnownTimeZone } from "./timezones";

const title = plainText({ min: 2, max: 255 });
const identifier = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9]{2,100}$/, "2-100 Latin letters or digits")
  .transform((value) => value.toLowerCase());

/** A public https URL or a media-asset UUID; reads turn an asset into a signed link. */
const logo = mediaReference().openapi({ example: "https://cdn.example.com/logo.png" });

const colorScheme = z
  .string()
  .regex(/^#[0-9A-Fa-f]{6}$/, "HEX colour #RRGGBB")
  .openapi({ example: "#1F6FEB" });

const timezone = z
  .string()
  .trim()
  .refine(isKnownTimeZone, "unknown time zone (IANA name such as Asia/Tashkent, or UTC)")
  .openapi({ example: "Asia/Tashkent" });

/** Fields every writer of a school may change; `logo: null` removes the logo. */
const editable = {
  title: title.optional(),
  logo: logo.nullable().optional(),
  color_scheme: colorScheme.optional(),
  hide_tests: z.boolean().optional(),
  hide_assignments: z.boolean().optional(),
  hide_trial_exams: z.boolean().optional(),
  timezone: timezone.optional(),
};

/** Slug and subdomain are fixed at creation; sending them is refused rather than silently ignored. */
const immutable = (name: string) =>
  z
    .unknown()
    .refine((value) => value === undefined, `${name} cannot be changed`)
    .optional()
    .openapi({ description: `Cannot be changed: sending it is a \`validation error\`` });
const immutableIdentifiers = { slug: immutable("slug"), subdomain: immutable("subdomain") };

export const CreateTenantBody = z
  .object({
    title,
    slug: identifier,
    subdomain: identifier,
    logo: logo.nullable().optional(),
    color_scheme: colorScheme.optional(),
    timezone: timezone.optional(),
  })
  .openapi("CreateTenantRequest");

export const AdminUpdateTenantBody = z
  .object({
    ...editable,
    storage_cap_bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    ...immutableIdentifiers,
  })
  .openapi("AdminUpdateTenantRequest");

export const SchoolUpdateTenantBody = z.object({ ...editable, ...immutableIdentifiers }).openapi("UpdateOwnTenantRequest");

export type TenantChanges = z.infer<typeof AdminUpdateTenantBody>;
export type SchoolTenantChanges = z.infer<typeof SchoolUpdateTenantBody>;

export const PublicTenantQuery = z.object({
  subdomain: plainText({ min: 1, max: 255 }).openapi({ example: "demo" }),
});

export const PublicBranding = z
  .object({
    title: z.string(),
    subdomain: z.string(),
    logo: z.string().nullable(),
    color_scheme: z.string(),
  })
  .openapi("PublicBranding");

export const Tenant = z
  .object({
    id: z.string(),
    title: z.string(),
    slug: z.string(),
    subdomain: z.string(),
    logo: z.string().nullable().openapi({ description: "Ready URL (a fresh signed link when stored as a media asset)" }),
    color_scheme: z.string(),
    hide_tests: z.boolean(),
    hide_assignments: z.boolean(),
    hide_trial_exams: z.boolean(),
    status: z.enum(["pending", "active"]),
    timezone: z.string(),
    storage_cap_bytes: z.number().int(),
    plan_state: z.enum(["trial", "paid", "suspended"]),
    expires_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Tenant");

