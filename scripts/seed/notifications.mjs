import { DEMO, DEMO_PAYMENT_ID, id, insertOnce } from "./demo.mjs";

/** Push notifications of the demo school: devices, preferences, a sent campaign, histories. */

const PUSH = {
  devices: [
    { id: id(0x801), user: DEMO.students[0], installation: "demo-sara-phone", platform: "android", appVersion: "1.4.0" },
    { id: id(0x802), user: DEMO.students[0], installation: "demo-sara-tablet", platform: "ios", appVersion: "1.4.0" },
    { id: id(0x803), user: DEMO.admin, installation: "demo-ada-phone", platform: "ios", appVersion: "1.4.0" },
  ],
  campaignId: id(0x901),
  notifications: { campaign: id(0xa01), newDevice: id(0xa02), activated: id(0xa03) },
};

/**
 * A registration token sealed the way the Worker seals one (AES-256-GCM under PUSH_TOKEN_KEY, bound
 * to the school and installation, plus the keyed lookup hash): src/platform/notifications/push-token-crypto.ts.
 */
async function sealDemoToken(base64Key, tenantId, installationId, token) {
  const raw = Buffer.from(base64Key.trim(), "base64");
  if (raw.length !== 32) return null;
  const subtle = globalThis.crypto.subtle;
  const aes = await subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt"]);
  const master = await subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  const lookup = await subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("push-token-lookup-v1") },
    master,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
  const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
  const additionalData = new TextEncoder().encode(`push-token:${tenantId}:${installationId}`);
  const sealed = await subtle.encrypt({ name: "AES-GCM", iv, additionalData }, aes, new TextEncoder().encode(token));
  const hash = Buffer.from(await subtle.sign("HMAC", lookup, new TextEncoder().encode(token))).toString("hex");
  return { ciphertext: `v2.${Buffer.from(iv).toString("base64url")}.${Buffer.from(sealed).toString("base64url")}`, hash };
}

/** `DD.MM.YYYY HH:MM` in the demo school's zone, as the Worker renders timestamps in ru. */
function tashkentTime(ms) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", { timeZone: "Asia/Tashkent", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
      .formatToParts(ms)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.day}.${parts.month}.${parts.year} ${parts.hour}:${parts.minute}`;
}

/**
 * Push demo: Sara and Ada have registered devices (tokens sealed with the local PUSH_TOKEN_KEY;
 * without a key, e.g. remote, the devices are left out), Timur switched pushes off, and a campaign
 * to every student was sent: Sara got it on both devices, the others were suppressed (push off or
 * no device). Sara's and Ada's histories hold a few delivered notifications, readable in the dev
 * pushbox too.
 */
export async function notifications({ now, pushTokenKey }) {
  const [sara, timur] = DEMO.students;
  const statements = [];
  const devices = [];
  for (const device of PUSH.devices) {
    const sealed = pushTokenKey ? await sealDemoToken(pushTokenKey, DEMO.tenantId, device.installation, `demo-fcm-token-${device.installation}`) : null;
    if (!sealed) continue;
    devices.push(device);
    statements.push(
      insertOnce("push_devices", {
        id: device.id,
        tenant_id: DEMO.tenantId,
        user_id: device.user.id,
        installation_id: device.installation,
        provider: "fcm",
        platform: device.platform,
        token_ciphertext: sealed.ciphertext,
        token_hash: sealed.hash,
        enabled: true,
        app_version: device.appVersion,
        last_seen_at: now,
        created_at: now,
        updated_at: now,
      }),
    );
  }
  statements.push(insertOnce("push_preferences", { tenant_id: DEMO.tenantId, user_id: timur.id, push_enabled: false, updated_at: now }));

  const sent = now - 2 * 3_600_000;
  const paidUntil = sent - 2 * 86_400_000 + 365 * 86_400_000;
  const filter = JSON.stringify({ match: "all", rules: [] });
  statements.push(
    insertOnce("notification_campaigns", {
      id: PUSH.campaignId,
      tenant_id: DEMO.tenantId,
      created_by_user_id: DEMO.admin.id,
      status: "completed",
      title: "Новый учебный модуль",
      body: "Открыт модуль «Основы». Загляните в приложение!",
      deep_link: "/courses",
      audience_filter: filter,
      audience_count: DEMO.students.length,
      outbox_created_count: 1,
      sent_count: 1,
      failed_count: 0,
      fanned_out_at: sent,
      scheduled_at: sent,
      started_at: sent,
      completed_at: sent,
      cancelled_at: null,
      created_at: sent,
      updated_at: sent,
    }),
    ...DEMO.students.map((student) =>
      insertOnce("notification_campaign_recipients", { tenant_id: DEMO.tenantId, campaign_id: PUSH.campaignId, user_id: student.id, status: student === sara ? "queued" : "suppressed" }),
    ),
  );
  const history = [
    {
      id: PUSH.notifications.campaign,
      user: sara,
      event_code: "campaign.message",
      category: "campaign",
      title: "Новый учебный модуль",
      body: "Открыт модуль «Основы». Загляните в приложение!",
      deep_link: "/courses",
      data: { event_code: "campaign.message", campaign_id: PUSH.campaignId },
      aggregate_type: "campaign",
      aggregate_id: PUSH.campaignId,
      dedupe_key: `campaign.message:${PUSH.campaignId}:${sara.id}`,
      campaign_id: PUSH.campaignId,
      at: sent,
    },
    {
      id: PUSH.notifications.newDevice,
      user: sara,
      event_code: "security.new_device_login",
      category: "security",
      title: "Новый вход в аккаунт",
      body: "Вход с нового устройства: Chrome, web, 01.01.2025 09:00. Если это были не вы, завершите сеанс и смените пароль.",
      deep_link: null,
      data: { event_code: "security.new_device_login", auth_device_id: id(0x8ff), device_name: "Chrome, web", platform: "web", signed_in_at: "2025-01-01T04:00:00.000Z", exclude_installation_id: "demo-sara-laptop" },
      aggregate_type: "auth_device",
      aggregate_id: id(0x8ff),
      dedupe_key: `security.new_device_login:${id(0x8ff)}`,
      campaign_id: null,
      at: sent - 86_400_000,
    },
    {
      id: PUSH.notifications.activated,
      user: DEMO.admin,
      event_code: "billing.activated",
      category: "billing",
      title: "Подписка активирована",
      body: `Тариф «Annual» оплачен на 365 дн. Доступ открыт до ${tashkentTime(paidUntil)}.`,
      deep_link: null,
      data: { event_code: "billing.activated", tenant_id: DEMO.tenantId, school_title: "Demo School", tariff_title: "Annual", days: 365, expires_at: new Date(paidUntil).toISOString() },
      aggregate_type: "tenant",
      aggregate_id: DEMO.tenantId,
      dedupe_key: `billing.activated:${DEMO.tenantId}:${DEMO_PAYMENT_ID}:${DEMO.admin.id}`,
      campaign_id: null,
      at: sent - 2 * 86_400_000,
    },
  ];
  let deliveryId = 0xb01;
  for (const row of history) {
    statements.push(
      insertOnce("notification_outbox", {
        id: row.id,
        tenant_id: DEMO.tenantId,
        user_id: row.user.id,
        event_code: row.event_code,
        category: row.category,
        title: row.title,
        body: row.body,
        deep_link: row.deep_link,
        data: JSON.stringify(row.data),
        aggregate_type: row.aggregate_type,
        aggregate_id: row.aggregate_id,
        dedupe_key: row.dedupe_key,
        status: "sent",
        attempts: 1,
        sent_at: row.at,
        settled_at: row.at,
        campaign_id: row.campaign_id,
        created_at: row.at,
      }),
    );
    for (const device of devices.filter((d) => d.user.id === row.user.id)) {
      statements.push(
        insertOnce("notification_deliveries", {
          id: id(deliveryId++),
          tenant_id: DEMO.tenantId,
          outbox_id: row.id,
          push_device_id: device.id,
          user_id: row.user.id,
          provider: "log",
          status: "sent",
          attempts: 1,
          provider_message_id: `log:demo-${row.id}`,
          delivered_at: row.at,
          created_at: row.at,
          updated_at: row.at,
        }),
      );
    }
  }
  return statements;
}
