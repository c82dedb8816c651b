import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionFamily } from "../../durable-objects/session-family";
import { createSchool, createUser, login } from "../helpers/factories";
import { refreshNative } from "../helpers/auth";
import { failure } from "../helpers/http";

describe("SessionFamily storage", () => {
  it("schedules its own deletion at the refresh expiry and deletes everything when the alarm fires", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain });
    const families = env.SESSION_FAMILY as unknown as DurableObjectNamespace<SessionFamily>;
    const stub = families.get(families.idFromName(session.session_id));
    const alarm = await runInDurableObject(stub, (_instance: SessionFamily, state) => state.storage.getAlarm());
    expect(alarm).toBe(Date.parse(session.refresh_expires_at));

    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const keys = await runInDurableObject(stub, async (_instance: SessionFamily, state) => [...(await state.storage.list()).keys()]);
    expect(keys).toEqual([]);
    // With its family gone the refresh token no longer rotates.
    expect(failure(await refreshNative(session.refresh_token!))).toEqual({ status: 401, error: "unauthorized" });
  });
});
