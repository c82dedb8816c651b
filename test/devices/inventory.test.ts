import { describe, expect, it } from "vitest";
import { createUser, login } from "../helpers/factories";
import { api } from "../helpers/http";
import { schoolWithStudent, setPolicy, signInOn, tenantCall } from "../helpers/devices";

describe("GET /t/me/devices", () => {
  it("lists own devices with every field, the current one marked, and the effective limit", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { max_active_devices: 3 });
    const phone = await signInOn(student, {
      name: "Pixel",
      platform: "android",
      extra: { os_name: "Android", os_version: "15", app_version: "2.4.1" },
    });
    const laptop = await signInOn(student, { name: "Laptop", browser: true, extra: { browser_name: "Firefox", browser_version: "140" } });
    await signInOn(student, { installationId: (await devicesOf(phone)).find((d) => d.id === phone.authDeviceId)!.installation_id });

    const res = await tenantCall(phone, "/t/me/devices");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ active_devices: 2, max_active_devices: 3, online_now: 2, active_sessions: 3 });
    const [first, second] = res.body.data.devices;
    const pixel = [first, second].find((d) => d.id === phone.authDeviceId);
    expect(pixel).toEqual({
      id: phone.authDeviceId,
      name: "Pixel",
      platform: "android",
      status: "online",
      last_seen_at: expect.any(String),
      active_sessions: 2,
      is_current: true,
      installation_id: expect.any(String),
      os_name: "Android",
      os_version: "15",
      browser_name: null,
      browser_version: null,
      app_version: "2.4.1",
      last_ip: null,
      blocked_at: null,
      block_reason: null,
      created_at: expect.any(String),
    });
    const browser = [first, second].find((d) => d.id === laptop.authDeviceId);
    expect(browser).toMatchObject({ name: "Laptop", platform: "web", browser_name: "Firefox", is_current: false, active_sessions: 1 });

    // From the laptop's session, the laptop is current.
    const fromLaptop = await tenantCall(laptop, "/t/me/devices");
    expect(fromLaptop.body.data.devices.filter((d: { is_current: boolean }) => d.is_current).map((d: { id: string }) => d.id)).toEqual([laptop.authDeviceId]);
  });

  it("shows another user's nothing: devices are per user", async () => {
    const { admin, student } = await schoolWithStudent();
    await signInOn(student);
    const mine = await tenantCall(admin, "/t/me/devices");
    expect(mine.body.data.devices).toHaveLength(1);
    expect(mine.body.data.max_active_devices).toBeNull();
  });
});

async function devicesOf(who: { token: string; subdomain: string }): Promise<{ id: string; installation_id: string }[]> {
  return (await tenantCall(who, "/t/me/devices")).body.data.devices;
}

describe("IP visibility", () => {
  it("hides, masks or shows addresses per ip_visibility, in the inventory and the history", async () => {
    const { admin, student } = await schoolWithStudent();
    const v4 = await signInOn(student, { ip: "203.0.113.45" });
    const v6 = await signInOn(student, { ip: "2001:db8:abcd:12::1" });
    const ipsOf = async () => {
      const devices = (await tenantCall(admin, `/t/users/${student.id}/devices`)).body.data.devices as { id: string; last_ip: string | null }[];
      const events = (await tenantCall(v4, "/t/me/device-events")).body.data.events as { auth_device_id: string; ip: string | null }[];
      return {
        inventory: [v4, v6].map((s) => devices.find((d) => d.id === s.authDeviceId)!.last_ip),
        events: [v4, v6].map((s) => events.find((e) => e.auth_device_id === s.authDeviceId)!.ip),
      };
    };
    expect(await ipsOf()).toEqual({ inventory: ["203.0.113.0/24", "2001:db8:abcd::/48"], events: ["203.0.113.0/24", "2001:db8:abcd::/48"] });
    await setPolicy(admin, { ip_visibility: "full" });
    expect(await ipsOf()).toEqual({ inventory: ["203.0.113.45", "2001:db8:abcd:12::1"], events: ["203.0.113.45", "2001:db8:abcd:12::1"] });
    await setPolicy(admin, { ip_visibility: "none" });
    expect(await ipsOf()).toEqual({ inventory: [null, null], events: [null, null] });
  });
});

describe("GET /t/me/device-events", () => {
  it("pages the own history newest first", async () => {
    const { student } = await schoolWithStudent();
    const a = await signInOn(student, { name: "A" });
    await signInOn(student, { name: "B" });
    await signInOn(student, { name: "C" });
    const all = await tenantCall(a, "/t/me/device-events");
    expect(all.status).toBe(200);
    expect(all.body.data).toMatchObject({ total: 3, page: 1, limit: 50 });
    expect(all.body.data.events.map((e: { device_name: string }) => e.device_name)).toEqual(["C", "B", "A"]);
    expect(all.body.data.events[2]).toEqual({
      id: expect.any(String),
      type: "login",
      auth_device_id: a.authDeviceId,
      device_name: "A",
      platform: "android",
      session_id: a.sessionId,
      ip: null,
      user_agent: null,
      actor_user_id: null,
      detail: { new_device: true, via: "password" },
      created_at: expect.any(String),
    });
    const page2 = await tenantCall(a, "/t/me/device-events?page=2&limit=1");
    expect(page2.body.data).toMatchObject({ total: 3, page: 2, limit: 1 });
    expect(page2.body.data.events.map((e: { device_name: string }) => e.device_name)).toEqual(["B"]);
  });

  it("400 invalid_params for a page or limit out of range", async () => {
    const { student } = await schoolWithStudent();
    const s = await signInOn(student);
    for (const query of ["limit=0", "limit=201", "page=0", "page=x"]) {
      const res = await tenantCall(s, `/t/me/device-events?${query}`);
      expect({ query, status: res.status, error: res.body.error }).toEqual({ query, status: 400, error: "invalid_params" });
    }
    expect((await tenantCall(s, "/t/me/device-events?limit=200")).status).toBe(200);
  });
});

describe("GET /t/users/:id/devices and /device-events (admin)", () => {
  it("shows a student's inventory and history to an admin", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 2 });
    const s = await signInOn(student, { name: "Phone" });
    const inventory = await tenantCall(admin, `/t/users/${student.id}/devices`);
    expect(inventory.status).toBe(200);
    expect(inventory.body.data).toMatchObject({
      active_devices: 1,
      max_active_devices: 2,
      online_now: 1,
      active_sessions: 1,
      limit_source: "school",
      mode: "enforce",
      override: null,
    });
    expect(inventory.body.data.devices).toEqual([expect.objectContaining({ id: s.authDeviceId, name: "Phone", is_current: false, status: "online" })]);
    const events = await tenantCall(admin, `/t/users/${student.id}/device-events?limit=10`);
    expect(events.body.data).toMatchObject({ total: 1, page: 1, limit: 10, events: [{ type: "login", auth_device_id: s.authDeviceId }] });
  });

  it("404 user_not_found for staff, unknown and other-school ids; 400 for a bad id; 403 for non-admins", async () => {
    const { school, admin, student } = await schoolWithStudent();
    const other = await schoolWithStudent();
    const curator = await createUser(school.id, { role: "curator", permissions: { can_manage_students: true, can_manage_groups: true } });
    for (const id of [admin.id, curator.id, other.student.id, "0190a6c2-1111-7000-8000-000000000001"]) {
      for (const suffix of ["devices", "device-events"]) {
        const res = await tenantCall(admin, `/t/users/${id}/${suffix}`);
        expect({ id, suffix, status: res.status, error: res.body.error }).toEqual({ id, suffix, status: 404, error: "user_not_found" });
      }
    }
    expect((await tenantCall(admin, "/t/users/nope/devices")).body.error).toBe("invalid_id_format");
    expect((await tenantCall(admin, `/t/users/${student.id}/device-events?limit=500`)).body.error).toBe("invalid_params");
    const studentSession = await signInOn(student);
    const curatorSession = await login(curator, { subdomain: school.subdomain });
    for (const token of [studentSession.token, curatorSession.token]) {
      const res = await api(`/t/users/${student.id}/devices`, { token, tenant: school.subdomain });
      expect([res.status, res.body.error]).toEqual([403, "forbidden"]);
    }
  });
});

describe("GET /t/users/:id/device-events page bounds", () => {
  it("accepts limit 1 and 200 and page 1; refuses limit 0 and 201 and page 0 with 400 invalid_params", async () => {
    const { admin, student } = await schoolWithStudent();
    await signInOn(student, { name: "One" });
    await signInOn(student, { name: "Two" });
    const events = (query: string) => tenantCall(admin, `/t/users/${student.id}/device-events?${query}`);

    const smallest = await events("page=1&limit=1");
    expect(smallest.status).toBe(200);
    expect(smallest.body.data).toMatchObject({ total: 2, page: 1, limit: 1 });
    expect(smallest.body.data.events.map((e: { device_name: string }) => e.device_name)).toEqual(["Two"]);
    const largest = await events("limit=200");
    expect(largest.status).toBe(200);
    expect(largest.body.data).toMatchObject({ total: 2, page: 1, limit: 200 });
    expect(largest.body.data.events).toHaveLength(2);

    for (const query of ["limit=0", "limit=201", "page=0"]) {
      const res = await events(query);
      expect({ query, status: res.status, error: res.body.error }).toEqual({ query, status: 400, error: "invalid_params" });
    }
  });
});
