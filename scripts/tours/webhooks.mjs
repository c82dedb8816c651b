import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "signed webhooks: create (secret shown once), a refused URL, a test delivery and its log, secret rotation, delete";

const DEMO_WEBHOOK = "01941f29-7c00-7000-8000-000000002601";

/**
 * Ada creates a webhook to a public https receiver (the delivery tries it in the background; its
 * answer, or the failure and the next try, shows in the log), sends a test event, reads the
 * delivery log, rotates the secret and deletes the webhook again, so a later run starts as this one
 * did. The seed's disabled webhook to a receiver on this machine is listed too.
 */
export async function run(t) {
  const { admin } = PEOPLE;
  const ada = await t.login(admin);
  const shown = (json) => pick(json.data, ["id", "url", "events", "status", "consecutive_failures"]);

  t.section(`${label(admin)} connects a CRM`);
  await t.step("A private address is refused", {
    method: "POST",
    who: ada,
    path: "/t/webhooks",
    body: { url: "https://10.0.0.7/hooks", events: ["*"] },
    expect: 400,
  });
  const created = await t.step("Create (the secret is in this answer only)", {
    method: "POST",
    who: ada,
    path: "/t/webhooks",
    body: { url: "https://crm.example.com/lms-webhooks", events: ["enrollment.created", "course.completed"], description: `Tour ${Date.now()}` },
    expect: 201,
    show: (json) => ({ ...shown(json), secret: `${json.data.secret.slice(0, 12)}…` }),
  });
  const hook = created.data.id;
  try {
    await t.step("The school's webhooks (no secrets)", { who: ada, path: "/t/webhooks", show: (json) => json.data.webhooks.map((w) => pick(w, ["url", "status"])) });
    // 404 only where the server has no PUSH_TOKEN_KEY to seal the seed's secret with.
    await t.step("The seed's webhook to a receiver on this machine, disabled", { who: ada, path: `/t/webhooks/${DEMO_WEBHOOK}`, expect: [200, 404], show: (json) => (json.data ? shown(json) : json) });

    t.section("A test event and the delivery log");
    const delivery = await t.step("Queue a webhook.test delivery", { method: "POST", who: ada, path: `/t/webhooks/${hook}/test`, show: (json) => pick(json.data, ["id", "type", "status", "attempts"]) });
    await t.step("The delivery log, newest first", {
      who: ada,
      path: `/t/webhooks/${hook}/deliveries?limit=5`,
      show: (json) => ({ total: json.data.total, deliveries: json.data.deliveries.map((d) => pick(d, ["type", "status", "attempts", "response_status", "next_attempt_at"])) }),
    });
    await t.step("Try it again now", { method: "POST", who: ada, path: `/t/webhooks/${hook}/deliveries/${delivery.data.id}/redeliver`, show: (json) => pick(json.data, ["status", "attempts"]) });

    t.section("Rotation: the old secret keeps signing for 24 hours");
    await t.step("Rotate", { method: "POST", who: ada, path: `/t/webhooks/${hook}/rotate-secret`, show: (json) => ({ secret: `${json.data.secret.slice(0, 12)}…` }) });
    await t.step("Pause it", { method: "PATCH", who: ada, path: `/t/webhooks/${hook}`, body: { status: "disabled" }, show: shown });
  } finally {
    await t.step("Delete it (its deliveries go with it)", { method: "DELETE", who: ada, path: `/t/webhooks/${hook}`, expect: 204 });
  }
}
