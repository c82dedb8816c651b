import { plainText, searchTerm, uuidField } from "../../core/http/fields";
import { z } from "@hono/zod-openapi";
import { offsetQuery } from "../../core/http/pagination";

/** Tiyn; capped so that 24 periods of the dearest tariff stay an exact JS integer. */
const money = z.number().int().min(0).max(10_000_000_000_000);
const uuid = uuidField;
const reference = plainText({ max: 64 }).nullable().optional();
const notes = z.string().max(10_000).nullable().optional();

/** How the money arrived; the spec shows `cash` and leaves the rest open. */
const PAYMENT_METHODS = ["cash", "bank_transfer", "card", "online", "other"] as const;
const method = z.enum(PAYMENT_METHODS).optional().openapi({ description: "Default `cash`" });

// ---------------------------------------------------------------------------------------------
// Tariffs

const tariffTitle = plainText({ min: 1, max: 255 });
const description = z.string().max(10_000).nullable();
const durationDays = z.number().int().min(1).max(36_500);
const sortOrder = z.number().int().min(-1_000_000_000).max(1_000_000_000);

export const CreateTariffBody = z
  .object({
    title: tariffTitle,
    description: description.optional(),
    price_cents: money.optional(),
    duration_days: durationDays,
    is_active: z.boolean().optional(),
    sort_order: sortOrder.optional(),
  })
  .openapi("CreateTariffRequest");

export const UpdateTariffBody = z
  .object({
    title: tariffTitle.optional(),
    description: description.optional(),
    price_cents: money.optional(),
    duration_days: durationDays.optional(),
    is_active: z.boolean().optional(),
    sort_order: sortOrder.optional(),
  })
  .openapi("UpdateTariffRequest");

export const TariffsQuery = z.object({
  active: z
    .enum(["true", "false"])
    .optional()
    .transform((value) => value === "true")
    .openapi({ description: "`true` lists only active tariffs; otherwise all" }),
});

export const Tariff = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    price_cents: z.number().int(),
    duration_days: z.number().int(),
    is_active: z.boolean(),
    sort_order: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Tariff");

// ---------------------------------------------------------------------------------------------
// Billing

export const TenantsBillingQuery = z.object({
  plan_state: z.enum(["trial", "paid", "suspended", ""]).optional(),
  search: searchTerm(255).openapi({ description: "Part of the title or subdomain; `%` and `_` match themselves" }),
  sort_by: z.enum(["expires_at", "created_at", "title"]).default("expires_at"),
  sort_dir: z.enum(["asc", "desc"]).default("asc"),
  ...offsetQuery({ maxLimit: 200, defaultLimit: 50 }),
});

export const PaymentsQuery = z.object(offsetQuery({ maxLimit: 200, defaultLimit: 50 }));

const byTariffKeys = ["tariff_id", "periods"] as const;
const freeFormKeys = ["days", "amount_cents", "title"] as const;

/**
 * Either by tariff (`tariff_id` + `periods`) or free-form (`days` + `amount_cents` + `title`):
 * one complete form, never a mix, never neither.
 */
export const ActivateBody = z
  .object({
    tariff_id: uuid.optional(),
    periods: z.number().int().min(1).max(24).optional(),
    days: z.number().int().min(1).max(3650).optional(),
    amount_cents: money.optional(),
    title: tariffTitle.optional(),
    method,
    reference,
    notes,
  })
  .superRefine((body, ctx) => {
    const present = (keys: readonly (keyof typeof body)[]) => keys.filter((key) => body[key] !== undefined);
    const tariffPart = present(byTariffKeys);
    const freePart = present(freeFormKeys);
    const message =
      tariffPart.length > 0 && freePart.length > 0
        ? "use either tariff_id + periods or days + amount_cents + title, not both"
        : tariffPart.length === 0 && freePart.length === 0
          ? "send tariff_id + periods, or days + amount_cents + title"
          : tariffPart.length > 0 && tariffPart.length < byTariffKeys.length
            ? "activation by tariff needs both tariff_id and periods"
            : freePart.length > 0 && freePart.length < freeFormKeys.length
              ? "free-form activation needs days, amount_cents and title"
              : null;
    if (message) ctx.addIssue({ code: "custom", message, path: [] });
  })
  .openapi("ActivateRequest");

export type ActivateInput = z.infer<typeof ActivateBody>;

export const ExtendBody = z
  .object({ days: z.number().int().min(1).max(3650), amount_cents: money.optional(), method, reference, notes })
  .openapi("ExtendRequest");

export const SuspendBody = z.object({ reason: z.string().max(10_000).nullable().optional() }).openapi("SuspendRequest");

/** What the school itself sees of a payment; `reference` is its receipt number. */
const schoolPaymentFields = {
  id: z.string(),
  tenant_id: z.string(),
  tariff_id: z.string().nullable(),
  tariff_title_snapshot: z.string().nullable(),
  amount_cents: z.number().int(),
  currency: z.string().openapi({ example: "UZS" }),
  days: z.number().int(),
  method: z.string(),
  reference: z.string().nullable(),
  applied_expires_at: z.string(),
  created_at: z.string(),
};

const SchoolPayment = z
  .object(schoolPaymentFields)
  .openapi("SchoolPayment", { description: "A payment as the school sees it: without the platform's internal `notes` and operator" });

export const Payment = z
  .object({ ...schoolPaymentFields, notes: z.string().nullable(), created_by_user_id: z.string().nullable() })
  .openapi("Payment");

const planState = z.enum(["trial", "paid", "suspended"]);

const BillingRow = z
  .object({
    tenant_id: z.string(),
    tenant_status: z.enum(["pending", "active"]),
    plan_state: planState,
    expires_at: z.string().nullable(),
    days_remaining: z.number().int(),
    title: z.string(),
    subdomain: z.string(),
    suspended_manually: z.boolean(),
    current_tariff_id: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("BillingRow");

export const BillingList = z.object({
  items: z.array(BillingRow),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

const dossierFields = {
  tenant_id: z.string(),
  tenant_status: z.enum(["pending", "active"]),
  plan_state: planState,
  expires_at: z.string().nullable(),
  days_remaining: z.number().int(),
  suspended_manually: z.boolean(),
  current_tariff: Tariff.nullable(),
};

export const BillingDossier = z
  .object({
    ...dossierFields,
    payment_history: z.array(Payment).openapi({ description: "Newest first; the latest 50 (all of them: GET /admin/tenants/{id}/payments)" }),
  })
  .openapi("BillingDossier");

/** GET /t/billing/me: the same dossier with the school's view of each payment. */
export const SchoolBillingDossier = z
  .object({ ...dossierFields, payment_history: z.array(SchoolPayment).openapi({ description: "Newest first; the latest 50" }) })
  .openapi("SchoolBillingDossier");

export const PaymentsPage = z.object({ items: z.array(Payment), limit: z.number().int(), offset: z.number().int() });

export const Suspended = z.object({ suspended: z.literal(true) });
export const Unsuspended = z.object({
  unsuspended: z.boolean().openapi({ description: "true when a manual suspension was lifted; false when there was none" }),
});
