import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import * as schema from "../../src/db/schema";
import { ISO } from "../helpers/courses";
import { schoolD1 } from "../helpers/databases";
import { countingD1, roundTripD1 } from "../helpers/d1-counter";
import { db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { adjust } from "../helpers/rating";
import { as, schoolWithAdmin, signedIn, type Member } from "../helpers/users";
import { envWith } from "../helpers/wrapped-d1";
import { applyPlan, upload } from "../imports/helpers";
import { hookOf } from "./helpers";

/**
 * `user.created`, `user.updated`, `user.deleted` (05 section 5; docs/decisions/webhooks.md,
 * "Producers"): one event per user a request created, changed or deleted, with the user as the API
 * answers it (without the avatar link); none for a repeat or a refusal; a school without an active
 * webhook writes no statement for them, one with webhooks no round trip more.
 */

const USER_EVENTS = ["user.created", "user.updated", "user.deleted"];

async function eventsOf(tenantId: string, type?: string) {
  const rows = await db()
    .select()
    .from(schema.webhookEvents)
    .where(type ? and(eq(schema.webhookEvents.tenantId, tenantId), eq(schema.webhookEvents.type, type)) : eq(schema.webhookEvents.tenantId, tenantId));
  return rows.map((row) => ({ type: row.type, data: JSON.parse(row.data) as Record<string, unknown> }));
}

async function deliveriesOf(tenantId: string) {
  return db().select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.tenantId, tenantId));
}

/** The user object of an answer as the event carries it. */
function shown(user: Record<string, unknown>) {
  const { avatar: _avatar, permissions: _permissions, ...rest } = user;
  return rest;
}

const newUser = (overrides: Record<string, unknown> = {}) => ({
  email: `new.${crypto.randomUUID()}@example.test`,
  password: "Secret-pass-123",
  first_name: "Ada",
  last_name: "Lovelace",
  role: "student",
  ...overrides,
});

async function hookedSchool() {
  const { school, admin } = await schoolWithAdmin();
  const hook = await hookOf(admin, { events: USER_EVENTS });
  return { school, admin, hook };
}

/** A request through the app counting the school database's statements and round trips. */
async function measured(member: Member, path: string, init: { method: string; body: unknown }) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const counting = countingD1(trips.db);
  const headers = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain, "content-type": "application/json" };
  const response = await app.request(`https://api.lms.localhost/api/v1${path}`, { method: init.method, headers, body: JSON.stringify(init.body) }, envWith(counting.db));
  await response.arrayBuffer();
  return { status: response.status, statements: counting.counts.prepare, roundTrips: trips.roundTrips() };
}

describe("user.created", () => {
  it("POST /t/users writes one, with the user as the answer shows it; a refused repeat none", async () => {
    const { school, admin, hook } = await hookedSchool();
    const body = newUser();
    const res = await as(admin, "/t/users", { body });
    expect(res.status).toBe(201);
    expect(await eventsOf(school.id)).toEqual([{ type: "user.created", data: shown(res.body.data) }]);
    expect(failure(await as(admin, "/t/users", { body }))).toEqual({ status: 400, error: "email already taken" });
    expect(await eventsOf(school.id)).toHaveLength(1);
    expect((await deliveriesOf(school.id)).map((row) => [row.webhookId, row.type, row.status])).toEqual([[hook.id, "user.created", "pending"]]);
  });

  it("a users import writes one per user it created and one per user it renamed", async () => {
    const { school, admin } = await hookedSchool();
    const known = await signedIn(school, { role: "student" });
    const csv = `email,first_name,last_name\nfresh1@import.test,Fresh,One\nfresh2@import.test,Fresh,Two\n${known.email},Renamed,Person\n`;
    const plan = (await upload(admin, "users", csv)).body.data;
    expect((await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash })).status).toBe(200);
    const created = (await eventsOf(school.id, "user.created")).map((event) => event.data);
    expect(created.map((data) => data.email).sort()).toEqual(["fresh1@import.test", "fresh2@import.test"]);
    for (const data of created) {
      const { body } = await as(admin, `/t/users/${String(data.id)}`);
      expect(data).toEqual(shown(pickUser(body.data)));
    }
    const updated = (await eventsOf(school.id, "user.updated")).map((event) => event.data);
    expect(updated).toEqual([shown(pickUser((await as(admin, `/t/users/${known.id}`)).body.data))]);
    expect(updated[0]).toMatchObject({ id: known.id, first_name: "Renamed", last_name: "Person", updated_at: expect.stringMatching(ISO) });
  });
});

/** The user object out of the detail answer (GET adds the groups and the curator). */
function pickUser(detail: Record<string, unknown>) {
  const keys = ["id", "tenant_id", "email", "first_name", "last_name", "avatar", "role", "is_active", "last_active_at", "created_at", "updated_at"];
  return Object.fromEntries(keys.map((key) => [key, detail[key]]));
}

describe("user.updated", () => {
  it("PUT /t/users/:id writes one per real change; the same values again none; a 404 none", async () => {
    const { school, admin } = await hookedSchool();
    const student = await signedIn(school, { role: "student" });
    const res = await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Grace" } });
    expect(res.status).toBe(200);
    expect((await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Grace" } })).status).toBe(200);
    const off = await as(admin, `/t/users/${student.id}`, { method: "PUT", body: { is_active: false } });
    expect(off.status).toBe(200);
    expect(failure(await as(admin, `/t/users/${crypto.randomUUID()}`, { method: "PUT", body: { first_name: "Nobody" } }))).toEqual({ status: 404, error: "user not found" });
    expect(await eventsOf(school.id)).toEqual([
      { type: "user.updated", data: shown(res.body.data) },
      { type: "user.updated", data: shown(off.body.data) },
    ]);
    expect(off.body.data).toMatchObject({ first_name: "Grace", is_active: false });
  });

  it("PATCH /t/me/profile writes one; the same values again none", async () => {
    const { school } = await hookedSchool();
    const student = await signedIn(school, { role: "student" });
    const res = await as(student, "/t/me/profile", { method: "PATCH", body: { first_name: "Marie", last_name: "Curie" } });
    expect(res.status).toBe(200);
    await as(student, "/t/me/profile", { method: "PATCH", body: { first_name: "Marie", last_name: "Curie" } });
    const events = await eventsOf(school.id);
    expect(events).toEqual([{ type: "user.updated", data: expect.objectContaining({ id: student.id, first_name: "Marie", last_name: "Curie", role: "student" }) }]);
    expect(events[0]!.data).toEqual(shown(pickUser(res.body.data)));
  });

  it("PUT /t/users/:id/role writes one per role change; the same role again none", async () => {
    const { school, admin } = await hookedSchool();
    const student = await signedIn(school, { role: "student" });
    const res = await as(admin, `/t/users/${student.id}/role`, { method: "PUT", body: { role: "curator" } });
    expect(res.status).toBe(200);
    await as(admin, `/t/users/${student.id}/role`, { method: "PUT", body: { role: "curator" } });
    const back = await as(admin, `/t/users/${student.id}/role`, { method: "PUT", body: { role: "student" } });
    expect(back.status).toBe(200);
    expect(await eventsOf(school.id)).toEqual([
      { type: "user.updated", data: shown(res.body.data) },
      { type: "user.updated", data: shown(back.body.data) },
    ]);
  });

  it("bulk deactivation writes one per user it turned; a repeat none", async () => {
    const { school, admin } = await hookedSchool();
    const [a, b] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    expect((await as(admin, "/t/users/bulk-deactivate", { body: { ids: [a.id, b.id] } })).status).toBe(200);
    await as(admin, "/t/users/bulk-deactivate", { body: { ids: [a.id, b.id] } });
    const events = await eventsOf(school.id, "user.updated");
    expect(events.map((event) => [event.data.id, event.data.is_active]).sort()).toEqual([[a.id, false], [b.id, false]].sort());
    for (const event of events) expect(event.data).toEqual(shown(pickUser((await as(admin, `/t/users/${String(event.data.id)}`)).body.data)));
  });
});

describe("user.deleted", () => {
  it("a soft delete writes one without personal data; a repeat and a later purge none", async () => {
    const { school, admin } = await hookedSchool();
    const student = await signedIn(school, { role: "student" });
    expect((await as(admin, `/t/users/${student.id}`, { method: "DELETE" })).status).toBe(200);
    expect(failure(await as(admin, `/t/users/${student.id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "user not found" });
    expect((await as(admin, `/t/users/${student.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    expect(await eventsOf(school.id)).toEqual([
      { type: "user.deleted", data: { id: student.id, tenant_id: school.id, role: "student", deleted_at: expect.stringMatching(ISO), permanent: false } },
    ]);
  });

  it("a purge of a live user writes one; a repeat is refused and writes none", async () => {
    const { school, admin } = await hookedSchool();
    const curator = await signedIn(school, { role: "curator" });
    expect((await as(admin, `/t/users/${curator.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    expect(failure(await as(admin, `/t/users/${curator.id}/permanent`, { method: "DELETE" }))).toEqual({ status: 400, error: "user not found" });
    expect(await eventsOf(school.id)).toEqual([
      { type: "user.deleted", data: { id: curator.id, tenant_id: school.id, role: "curator", deleted_at: expect.stringMatching(ISO), permanent: true } },
    ]);
  });
});

describe("personal data in events", () => {
  it("a purge removes the waiting events about the person and their deliveries; others' events and user.deleted stay", async () => {
    const { school, admin } = await schoolWithAdmin();
    await hookOf(admin, { events: ["*"] });
    const created = await as(admin, "/t/users", { method: "POST", body: newUser() });
    expect(created.status).toBe(201);
    const goner = created.body.data.id as string;
    const other = await as(admin, "/t/users", { method: "POST", body: newUser({ first_name: "Grace" }) });
    expect(other.status).toBe(201);
    expect((await as(admin, `/t/users/${goner}`, { method: "PUT", body: { first_name: "Renamed" } })).status).toBe(200);
    // A points event names the student too (a content event, not a user event).
    const adjusted = await adjust(admin, { student_id: goner, points: "2.50", reason: "Help", idempotency_key: "purge-1" });
    expect(adjusted.status).toBe(201);
    const before = await eventsOf(school.id);
    expect(before.map((event) => event.type).sort()).toEqual(["rating.points_changed", "user.created", "user.created", "user.updated"]);
    expect((await deliveriesOf(school.id)).length).toBe(4);

    expect((await as(admin, `/t/users/${goner}/permanent`, { method: "DELETE" })).status).toBe(200);
    const after = await eventsOf(school.id);
    expect(after).toEqual([
      { type: "user.created", data: expect.objectContaining({ id: other.body.data.id, first_name: "Grace" }) },
      { type: "user.deleted", data: { id: goner, tenant_id: school.id, role: "student", deleted_at: expect.stringMatching(ISO), permanent: true } },
    ]);
    expect(JSON.stringify(after)).not.toContain("Renamed");
    const rows = await db().select().from(schema.webhookEvents).where(eq(schema.webhookEvents.tenantId, school.id));
    const deliveries = await deliveriesOf(school.id);
    expect(deliveries.map((row) => row.eventId).sort()).toEqual(rows.map((row) => row.id).sort());
  });
});

describe("statements", () => {
  it("a school without an active webhook writes no outbox statement; one with webhooks two, and no round trip more", async () => {
    const plain = await schoolWithAdmin();
    const hooked = await hookedSchool();
    const runs = [];
    for (const setup of [plain, hooked]) {
      const student = await signedIn(setup.school, { role: "student" });
      runs.push(await measured(setup.admin, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Counted" } }));
    }
    const [none, withHooks] = runs;
    expect(none!.status).toBe(200);
    expect(withHooks!.status).toBe(200);
    expect(withHooks!.roundTrips).toBe(none!.roundTrips);
    expect(withHooks!.statements).toBe(none!.statements + 2);
    expect(await eventsOf(plain.school.id)).toEqual([]);
  });
});
