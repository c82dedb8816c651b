import { DEMO } from "../seed/demo.mjs";
import { PEOPLE, labelOf, pick } from "./lib/tour.mjs";

export const summary = "an audience preview, a campaign sent through the local queue, the pushes delivered, a student's history";

/** Sends a new campaign each run to the Morning group (Sara, Timur; Timur has pushes off). */
export async function run(t) {
  const { admin, student1 } = PEOPLE;
  const ada = await t.login(admin);
  const filter = { match: "all", rules: [{ field: "group_id", operator: "in", values: [DEMO.groupId] }] };

  t.section("Who a filter reaches: the Morning group");
  await t.step("Preview the audience", { method: "POST", who: ada, path: "/t/notifications/admin/audience/preview", body: { filter }, show: (json) => json.data.audience });

  t.section("Send now; the local queue delivers within a second or two");
  const title = `Room change ${t.runId}`;
  const campaign = await t.step("A campaign", {
    method: "POST",
    who: ada,
    path: "/t/notifications/admin/campaigns",
    body: { title, body: "Today's class is in room 12.", deep_link: "/schedule", filter },
    expect: 201,
    show: (json) => pick(json.data.campaign, ["id", "status", "audience_count"]),
  });
  const id = campaign.data.campaign.id;
  await t.poll(
    "The campaign once sent",
    { who: ada, path: `/t/notifications/admin/campaigns/${id}`, show: (json) => pick(json.data.campaign, ["status", "audience_count", "outbox_created_count", "sent_count"]) },
    (json) => json.data.campaign.sent_count > 0,
  );
  await t.poll(
    `The pushes ${labelOf(student1)} devices got (local dev pushbox)`,
    { path: `/dev/pushes?user_id=${student1.id}`, show: (json) => json.data.pushes.filter((p) => p.title === title).map((p) => pick(p, ["event_code", "title", "installation_id"])) },
    (json) => json.data.pushes.some((p) => p.title === title),
  );

  t.section("Sara's own history (one row per notification, however many devices got it)");
  const sara = await t.login(student1);
  const history = await t.step("Her notifications", { who: sara, path: "/t/notifications/me", show: (json) => json.data.notifications.map((n) => pick(n, ["event_code", "title"])) });
  t.check(history.data.notifications.filter((n) => n.title === title).length === 1, "this run's campaign appears once");
}
