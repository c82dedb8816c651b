import { env } from "cloudflare:test";
import { importSPKI, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import type { Env } from "../../src/core/env";
import { setClockForTests } from "../../src/core/lib/clock";
import { createSchool, createUser } from "../helpers/factories";
import { addPushDevice, deliveriesOf, dispatchMessage, outboxRows, pushDeviceRow, runPushQueue, writePush } from "./helpers";

afterEach(() => setClockForTests(null));

const TOKEN_URL = "https://oauth.test/token";
const FCM_URL = "https://fcm.test";

function pem(label: string, bytes: ArrayBuffer): string {
  const base64 = btoa(String.fromCharCode(...new Uint8Array(bytes)));
  return `-----BEGIN ${label}-----\n${base64.match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
}

const keyPair = crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, [
  "sign",
  "verify",
]) as Promise<CryptoKeyPair>;

/** An FCM configuration with its own service account, so each test starts with no cached access token. */
async function fcmEnv(): Promise<{ env: Env; clientEmail: string; queued: unknown[] }> {
  const pair = await keyPair;
  const clientEmail = `push-${crypto.randomUUID()}@demo-project.iam.gserviceaccount.com`;
  const account = { type: "service_account", project_id: "demo-project", client_email: clientEmail, private_key: pem("PRIVATE KEY", (await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer), token_uri: TOKEN_URL };
  // Retries are sent to the queue; recording them keeps the local queue (log provider) out of these tests.
  const queued: unknown[] = [];
  const queue = { send: async (body: unknown) => void queued.push(body), sendBatch: async (items: { body: unknown }[]) => void queued.push(...items.map((item) => item.body)) };
  return {
    env: { ...env, PUSH_PROVIDER: "fcm", FCM_SERVICE_ACCOUNT: JSON.stringify(account), FCM_API_URL: FCM_URL, PUSH_OUTBOX: queue } as unknown as Env,
    clientEmail,
    queued,
  };
}

interface Recorded {
  url: string;
  headers: Headers;
  body: any;
}

/** Google's token endpoint and FCM in one fake: FCM answers with the scripted responses in turn (the last repeats). */
function fakeGoogle(...fcm: (() => Response)[]) {
  const tokenCalls: Recorded[] = [];
  const sends: Recorded[] = [];
  let tokenCounter = 0;
  const tokenResponse = { current: () => Response.json({ access_token: `ya29.token-${++tokenCounter}`, expires_in: 3600, token_type: "Bearer" }) };
  return {
    tokenCalls,
    sends,
    tokenResponse,
    fetch: async (url: string, init: RequestInit) => {
      const record = { url, headers: new Headers(init.headers), body: init.body };
      if (url === TOKEN_URL) {
        tokenCalls.push({ ...record, body: Object.fromEntries(new URLSearchParams(String(init.body))) });
        return tokenResponse.current();
      }
      sends.push({ ...record, body: JSON.parse(String(init.body)) });
      return fcm[Math.min(sends.length - 1, fcm.length - 1)]!();
    },
  };
}

const ok = () => Response.json({ name: `projects/demo-project/messages/${crypto.randomUUID()}` });
const fcmError = (status: number, errorCode: string, headers: Record<string, string> = {}) => () =>
  Response.json(
    { error: { code: status, message: `${errorCode} from fake FCM`, status: errorCode, details: [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode }] } },
    { status, headers },
  );

/** A school member with push devices and one pending notification (written directly: no queue message). */
async function pendingPush(devices = 1) {
  const school = await createSchool();
  const user = await createUser(school.id, { role: "student" });
  const added = [];
  for (let i = 0; i < devices; i++) added.push(await addPushDevice(school.id, user.id, { token: `device-token-${i}-${crypto.randomUUID()}` }));
  await writePush(school.id, user.id);
  const [row] = await outboxRows(school.id);
  return { school, user, devices: added, row: row! };
}

describe("FCM HTTP v1 provider", () => {
  it("signs a service-account JWT with jose, caches the access token and sends the message with its data", async () => {
    const { env: fcm, clientEmail } = await fcmEnv();
    const google = fakeGoogle(ok);
    const { school, user, row } = await pendingPush();
    await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });

    expect(google.tokenCalls).toHaveLength(1);
    const assertion = google.tokenCalls[0]!.body.assertion as string;
    expect(google.tokenCalls[0]!.body.grant_type).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    const publicKey = await importSPKI(pem("PUBLIC KEY", (await crypto.subtle.exportKey("spki", (await keyPair).publicKey)) as ArrayBuffer), "RS256");
    const { payload, protectedHeader } = await jwtVerify(assertion, publicKey, { issuer: clientEmail, audience: TOKEN_URL });
    expect(protectedHeader.alg).toBe("RS256");
    expect(payload.scope).toBe("https://www.googleapis.com/auth/firebase.messaging");

    expect(google.sends).toHaveLength(1);
    const [send] = google.sends;
    expect(send!.url).toBe(`${FCM_URL}/v1/projects/demo-project/messages:send`);
    expect(send!.headers.get("authorization")).toBe("Bearer ya29.token-1");
    expect(send!.body.message).toMatchObject({
      token: expect.stringMatching(/^device-token-0-/),
      notification: { title: row.title, body: row.body },
      data: { event_code: "security.password_reset", notification_id: row.id, user_id: user.id },
    });
    expect(Object.values(send!.body.message.data).every((value) => typeof value === "string")).toBe(true);
    const [after] = await outboxRows(school.id);
    expect(after).toMatchObject({ status: "sent", sentAt: expect.any(Number), attempts: 1 });
    expect(await deliveriesOf(row.id)).toMatchObject([{ status: "sent", provider: "fcm", providerMessageId: expect.stringMatching(/^projects\/demo-project\/messages\//) }]);

    // The next notification reuses the cached access token.
    await writePush(school.id, user.id);
    await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
    expect(google.sends).toHaveLength(2);
    expect(google.tokenCalls).toHaveLength(1);
  });

  it("UNREGISTERED or INVALID_ARGUMENT disables that device; the notification still counts as sent when another device got it", async () => {
    const { env: fcm } = await fcmEnv();
    const google = fakeGoogle(fcmError(404, "UNREGISTERED"), fcmError(400, "INVALID_ARGUMENT"), ok);
    const { school, devices, row } = await pendingPush(3);
    await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
    expect(google.sends).toHaveLength(3);
    const states = await Promise.all(devices.map((device) => pushDeviceRow(device.id)));
    expect(states.map((device) => device.enabled).sort()).toEqual([false, false, true]);
    expect((await outboxRows(school.id))[0]).toMatchObject({ status: "sent" });
    expect((await deliveriesOf(row.id)).map((delivery) => delivery.status).sort()).toEqual(["failed", "failed", "sent"]);
  });

  it("a notification whose only device is unregistered fails and never shows in the history", async () => {
    const { env: fcm } = await fcmEnv();
    const google = fakeGoogle(fcmError(404, "UNREGISTERED"));
    const { school, devices } = await pendingPush(1);
    await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
    expect((await outboxRows(school.id))[0]).toMatchObject({ status: "failed", sentAt: null, lastError: expect.stringContaining("UNREGISTERED") });
    expect((await pushDeviceRow(devices[0]!.id)).enabled).toBe(false);
  });

  it("retries 5xx with backoff (the message for the retry is delayed), then fails after the last attempt", async () => {
    const { env: fcm, queued } = await fcmEnv();
    const google = fakeGoogle(fcmError(503, "UNAVAILABLE"));
    const { school, row } = await pendingPush(1);
    let now = Date.now();
    const expectedDelays = [60, 120, 240, 480];
    for (let attempt = 1; attempt <= 5; attempt++) {
      setClockForTests({ now: () => now });
      await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
      const [current] = await outboxRows(school.id);
      if (attempt < 5) {
        const delay = expectedDelays[attempt - 1]!;
        expect({ attempt, status: current!.status, notBefore: current!.leaseUntil }).toEqual({ attempt, status: "pending", notBefore: now + delay * 1000 - 1000 });
        // Not due yet: another message does nothing.
        await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
        expect(google.sends).toHaveLength(attempt);
        now += delay * 1000;
      } else {
        expect(current).toMatchObject({ status: "failed", attempts: 5, sentAt: null });
      }
    }
    expect(google.sends).toHaveLength(5);
    expect(queued).toHaveLength(4);
    expect(await deliveriesOf(row.id)).toMatchObject([{ status: "failed", attempts: 5, lastError: expect.stringContaining("503") }]);
  });

  it("429 honours Retry-After when it is longer than the backoff", async () => {
    const { env: fcm } = await fcmEnv();
    const google = fakeGoogle(fcmError(429, "QUOTA_EXCEEDED", { "retry-after": "600" }), ok);
    const { school } = await pendingPush(1);
    const now = Date.now();
    setClockForTests({ now: () => now });
    await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
    expect((await outboxRows(school.id))[0]).toMatchObject({ status: "pending", leaseUntil: now + 600_000 - 1000 });
    setClockForTests({ now: () => now + 600_000 });
    await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
    expect((await outboxRows(school.id))[0]).toMatchObject({ status: "sent", attempts: 2 });
  });

  it("a 401 drops the cached access token and the retry signs in again", async () => {
    const { env: fcm } = await fcmEnv();
    const google = fakeGoogle(fcmError(401, "UNAUTHENTICATED"), ok);
    const { school } = await pendingPush(1);
    const now = Date.now();
    setClockForTests({ now: () => now });
    await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
    setClockForTests({ now: () => now + 60_000 });
    await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
    expect(google.tokenCalls).toHaveLength(2);
    expect(google.sends.map((send) => send.headers.get("authorization"))).toEqual(["Bearer ya29.token-1", "Bearer ya29.token-2"]);
    expect((await outboxRows(school.id))[0]!.status).toBe("sent");
  });

  it("a token endpoint refusing the service account fails the notification with the reason", async () => {
    const { env: fcm } = await fcmEnv();
    const google = fakeGoogle(ok);
    google.tokenResponse.current = () => Response.json({ error: "invalid_grant" }, { status: 400 });
    const { school } = await pendingPush(1);
    await runPushQueue([dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
    expect(google.sends).toHaveLength(0);
    expect((await outboxRows(school.id))[0]).toMatchObject({ status: "failed", lastError: expect.stringContaining("invalid_grant") });
  });

  it("without a usable service account every push fails at once with a readable reason", async () => {
    const { env: fcm } = await fcmEnv();
    const google = fakeGoogle(ok);
    const { school } = await pendingPush(1);
    await runPushQueue([dispatchMessage(school.id)], { env: { ...fcm, FCM_SERVICE_ACCOUNT: undefined } as Env, fetch: google.fetch });
    expect(google.sends).toHaveLength(0);
    expect((await outboxRows(school.id))[0]).toMatchObject({ status: "failed", lastError: "config: PUSH_PROVIDER=fcm but FCM_SERVICE_ACCOUNT is not set" });
  });

  it("redelivered and duplicate messages push once per device", async () => {
    const { env: fcm } = await fcmEnv();
    const google = fakeGoogle(ok);
    const { school, row } = await pendingPush(2);
    await runPushQueue([dispatchMessage(school.id), dispatchMessage(school.id)], { env: fcm, fetch: google.fetch });
    await runPushQueue([dispatchMessage(school.id, 2)], { env: fcm, fetch: google.fetch });
    expect(google.sends).toHaveLength(2);
    expect(await deliveriesOf(row.id)).toHaveLength(2);
  });
});
