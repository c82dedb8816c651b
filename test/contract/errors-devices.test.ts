import { describe, expect, it } from "vitest";
import { schoolWithStudent, setPolicy, signInOn, tenantCall } from "../helpers/devices";
import { failure } from "../helpers/http";

/** Every listed failure of the contract's device endpoints under /t (the gate's are in the gate matrix). */

describe("self-service device failures", () => {
  it("POST /t/me/devices/:deviceId/revoke: 404 device_not_found", async () => {
    const { student } = await schoolWithStudent();
    const signed = await signInOn(student);
    const res = await tenantCall(signed, "/t/me/devices/0190a6c2-1111-7000-8000-000000000001/revoke", { method: "POST" });
    expect(failure(res)).toEqual({ status: 404, error: "device_not_found" });
  });

  it("403 device_self_management_disabled on both self-service revocations", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { allow_self_management: false });
    const first = await signInOn(student);
    const second = await signInOn(student);
    const one = await tenantCall(first, `/t/me/devices/${second.authDeviceId}/revoke`, { method: "POST" });
    expect(failure(one)).toEqual({ status: 403, error: "device_self_management_disabled" });
    const others = await tenantCall(first, "/t/me/sessions/revoke-others", { method: "POST" });
    expect(failure(others)).toEqual({ status: 403, error: "device_self_management_disabled" });
  });
});

describe("device administration failures", () => {
  it("PATCH /t/tenant/device-policy: 400 invalid_device_policy", async () => {
    const { admin } = await schoolWithStudent();
    const res = await tenantCall(admin, "/t/tenant/device-policy", { method: "PATCH", body: { max_active_devices: -1 } });
    expect(failure(res)).toEqual({ status: 400, error: "invalid_device_policy" });
  });

  it("GET /t/users/:id/device-policy-override: 404 while the school's defaults apply", async () => {
    const { admin, student } = await schoolWithStudent();
    const res = await tenantCall(admin, `/t/users/${student.id}/device-policy-override`);
    expect(failure(res)).toEqual({ status: 404, error: "device_policy_override_not_found" });
  });
});
