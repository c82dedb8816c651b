import { eq } from "drizzle-orm";
import { devicePolicies } from "../db/schema";
import type { ServiceContext } from "../http/context";

export type DevicePolicy = Omit<typeof devicePolicies.$inferSelect, "tenantId" | "updatedAt">;

/** What a school gets until its admin saves a policy (recorded in docs/decisions.md). */
export const DEFAULT_DEVICE_POLICY: DevicePolicy = {
  mode: "monitor_only",
  maxActiveDevices: null,
  inactiveDeviceDays: 30,
  allowSelfManagement: true,
  allowSelfReplacement: true,
  notifyOnNewDevice: true,
  revokeOnPasswordChange: true,
  revokeOnPasswordReset: true,
  sessionIdleTimeoutMinutes: 14 * 24 * 60,
  sessionAbsoluteLifetimeDays: 90,
  eventRetentionDays: 180,
  ipVisibility: "masked",
};

/** The platform (superadmin) has no school policy; its sessions use the defaults. */
export function devicePolicyQuery(ctx: ServiceContext, tenantId: string | null) {
  return ctx.db
    .select()
    .from(devicePolicies)
    .where(eq(devicePolicies.tenantId, tenantId ?? ""))
    .limit(1);
}

export function effectivePolicy(row: typeof devicePolicies.$inferSelect | undefined): DevicePolicy {
  if (!row) return DEFAULT_DEVICE_POLICY;
  const { tenantId: _tenant, updatedAt: _updated, ...policy } = row;
  return policy;
}
