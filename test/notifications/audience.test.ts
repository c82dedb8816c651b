import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../helpers/factories";
import { failure } from "../helpers/http";
import { addGroupCurator, addMember, assignIndividualCurator, createGroup, curatorWith, signedIn } from "../helpers/users";
import { addPushDevice, call } from "./helpers";
import { db } from "../helpers/factories";
import * as schema from "../../src/db/schema";
import { eq } from "drizzle-orm";

/** A school with students in two groups, a curator restricted to part of them, and some bystanders. */
async function audienceSchool() {
  const school = await createSchool();
  const admin = await signedIn(school, { role: "admin" });
  const make = (firstName: string, options: Parameters<typeof createUser>[1] = {}) => createUser(school.id, { role: "student", firstName, ...options });
  const anna = await make("Anna");
  const bekzod = await make("Bekzod");
  const dilya = await make("Dilya");
  const eldor = await make("Eldor");
  const inactive = await make("Inactive", { isActive: false });
  const deleted = await make("Deleted");
  await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, deleted.id));
  await createUser(school.id, { role: "curator", firstName: "Staff" });
  const red = await createGroup(school.id, { name: "Red group" });
  const blue = await createGroup(school.id, { name: "Blue group" });
  const gone = await createGroup(school.id, { name: "Gone group", deleted: true });
  await addMember(red, anna.id);
  await addMember(red, bekzod.id);
  await addMember(blue, bekzod.id);
  await addMember(blue, dilya.id);
  await addMember(gone, eldor.id);
  await addPushDevice(school.id, anna.id);
  await addPushDevice(school.id, dilya.id);
  await db().insert(schema.pushPreferences).values({ tenantId: school.id, userId: dilya.id, pushEnabled: false, updatedAt: Date.now() });
  const now = Date.now();
  await db().update(schema.users).set({ lastActiveAt: now - 10 * 86_400_000 }).where(eq(schema.users.id, anna.id));
  await db().update(schema.users).set({ lastActiveAt: now - 3600_000 }).where(eq(schema.users.id, bekzod.id));
  const curator = await signedIn(school, curatorWith({ can_manage_notifications: true }));
  await addGroupCurator(blue, curator.id);
  await assignIndividualCurator(eldor.id, curator.id);
  return { school, admin, curator, students: { anna, bekzod, dilya, eldor }, inactive, deleted, groups: { red, blue, gone } };
}

const preview = (who: { token: string; subdomain: string }, filter: unknown, extra: Record<string, unknown> = {}) =>
  call(who, "/t/notifications/admin/audience/preview", { body: { filter, ...extra } });

const names = (res: { body: any }) => (res.body.data.audience.sample as { first_name: string }[]).map((s) => s.first_name).sort();

describe("POST /t/notifications/admin/audience/preview", () => {
  it("empty rules: every live, active student; staff, inactive and deleted users never count", async () => {
    const { admin } = await audienceSchool();
    const res = await preview(admin, { match: "all", rules: [] });
    expect(res.status).toBe(200);
    expect(res.body.data.audience).toMatchObject({ count: 4, sample_limit: 20, capped: false });
    expect(names(res)).toEqual(["Anna", "Bekzod", "Dilya", "Eldor"]);
    expect(res.body.data.audience.sample[0]).toEqual({ id: expect.any(String), email: expect.any(String), first_name: expect.any(String), last_name: "User" });
  });

  it("compiles group, device, push and activity rules with all / any", async () => {
    const { admin, groups } = await audienceSchool();
    const cases: [unknown, string[]][] = [
      [{ match: "all", rules: [{ field: "group_id", operator: "in", values: [groups.red.id] }] }, ["Anna", "Bekzod"]],
      [{ match: "all", rules: [{ field: "group_id", operator: "in", values: [groups.red.id, groups.blue.id] }] }, ["Anna", "Bekzod", "Dilya"]],
      [{ match: "all", rules: [{ field: "group_id", operator: "not_in", values: [groups.red.id] }] }, ["Dilya", "Eldor"]],
      // A deleted group holds nobody.
      [{ match: "all", rules: [{ field: "group_id", operator: "in", values: [groups.gone.id] }] }, []],
      [{ match: "all", rules: [{ field: "has_device", operator: "eq", value: "true" }] }, ["Anna", "Dilya"]],
      [{ match: "all", rules: [{ field: "has_device", operator: "eq", value: "false" }] }, ["Bekzod", "Eldor"]],
      [{ match: "all", rules: [{ field: "push_enabled", operator: "eq", value: "false" }] }, ["Dilya"]],
      [{ match: "all", rules: [{ field: "push_enabled", operator: "eq", value: true }, { field: "has_device", operator: "eq", value: "true" }] }, ["Anna"]],
      [{ match: "all", rules: [{ field: "last_active_at", operator: "after", value: new Date(Date.now() - 86_400_000).toISOString() }] }, ["Bekzod"]],
      // Never active counts as "before".
      [{ match: "all", rules: [{ field: "last_active_at", operator: "before", value: new Date(Date.now() - 86_400_000).toISOString() }] }, ["Anna", "Dilya", "Eldor"]],
      [
        {
          match: "any",
          rules: [
            { field: "group_id", operator: "in", values: [groups.blue.id] },
            { field: "has_device", operator: "eq", value: "true" },
          ],
        },
        ["Anna", "Bekzod", "Dilya"],
      ],
      [
        {
          match: "all",
          rules: [
            { field: "group_id", operator: "in", values: [groups.blue.id] },
            { field: "has_device", operator: "eq", value: "true" },
          ],
        },
        ["Dilya"],
      ],
    ];
    for (const [filter, expected] of cases) {
      const res = await preview(admin, filter);
      expect({ filter, status: res.status, names: names(res), count: res.body.data.audience.count }).toEqual({ filter, status: 200, names: expected, count: expected.length });
    }
  });

  it("samples up to sample_limit and says when the count is capped", async () => {
    const { admin } = await audienceSchool();
    const res = await preview(admin, { match: "all", rules: [] }, { sample_limit: 2 });
    expect(res.body.data.audience).toMatchObject({ count: 4, sample_limit: 2, capped: true });
    expect(res.body.data.audience.sample).toHaveLength(2);
  });

  it("a restricted curator's audience is intersected with their own students", async () => {
    const { curator } = await audienceSchool();
    expect(names(await preview(curator, { match: "all", rules: [] }))).toEqual(["Bekzod", "Dilya", "Eldor"]);
    expect(names(await preview(curator, { match: "all", rules: [{ field: "has_device", operator: "eq", value: "true" }] }))).toEqual(["Dilya"]);
  });

  it("400 invalid_notification_audience for unknown, not yet available or malformed rules", async () => {
    const { admin, groups } = await audienceSchool();
    const bad: unknown[] = [
      { match: "all", rules: [{ field: "favourite_colour", operator: "eq", value: "red" }] },
      { match: "all", rules: [{ field: "assignment_submitted", operator: "eq", values: [groups.red.id] }] },
      { match: "all", rules: [{ field: "course_enrollment", operator: "eq", values: [groups.red.id] }] },
      { match: "all", rules: [{ field: "lesson_completed", operator: "in", values: ["not-a-uuid"] }] },
      // points_total and rank exist since the rating (every named field does now): a malformed value.
      { match: "all", rules: [{ field: "points_total", operator: "gte", value: "ten" }] },
      { match: "all", rules: [{ field: "group_id", operator: "eq", values: [groups.red.id] }] },
      { match: "all", rules: [{ field: "group_id", operator: "in", values: ["not-a-uuid"] }] },
      { match: "all", rules: [{ field: "group_id", operator: "in", values: [] }] },
      { match: "all", rules: [{ field: "group_id", operator: "in" }] },
      { match: "all", rules: [{ field: "has_device", operator: "eq", value: "yes" }] },
      { match: "all", rules: [{ field: "last_active_at", operator: "after", value: "yesterday" }] },
      { match: "all", rules: [{ field: "last_active_at", operator: "after", value: "2030-01-01" }] },
      { match: "all", rules: [{ field: "has_device", operator: "eq", value: "true", extra: 1 }] },
      { match: "some", rules: [] },
      { match: "all" },
      { match: "all", rules: {} },
      { match: "all", rules: Array.from({ length: 51 }, () => ({ field: "has_device", operator: "eq", value: "true" })) },
      "everyone",
      null,
    ];
    for (const filter of bad) {
      const res = await preview(admin, filter);
      expect({ filter, ...failure(res) }).toEqual({ filter, status: 400, error: "invalid_notification_audience" });
    }
    for (const body of [{}, { filter: { match: "all", rules: [] }, sample_limit: 0 }, { filter: { match: "all", rules: [] }, sample_limit: 101 }]) {
      const res = await call(admin, "/t/notifications/admin/audience/preview", { body });
      expect({ body, ...failure(res) }).toEqual({ body, status: 400, error: "invalid_notification_audience" });
    }
  });
});

describe("GET /t/notifications/admin/audience/options", () => {
  it("students and groups with search, limit and total", async () => {
    const { admin, students } = await audienceSchool();
    const all = await call(admin, "/t/notifications/admin/audience/options?kind=student");
    expect(all.status).toBe(200);
    expect(all.body.data).toMatchObject({ kind: "student", total: 4, limit: 20 });
    expect(all.body.data.options[0]).toEqual({ id: students.anna.id, label: "Anna User", subtitle: students.anna.email });
    const searched = await call(admin, "/t/notifications/admin/audience/options?kind=student&q=bek&limit=1");
    expect(searched.body.data).toMatchObject({ total: 1, limit: 1, options: [{ id: students.bekzod.id }] });
    const byEmail = await call(admin, `/t/notifications/admin/audience/options?kind=student&q=${encodeURIComponent(students.dilya.email.toUpperCase())}`);
    expect(byEmail.body.data.options.map((option: { id: string }) => option.id)).toEqual([students.dilya.id]);
    const groups = await call(admin, "/t/notifications/admin/audience/options?kind=group");
    expect(groups.body.data.options.map((option: { label: string; subtitle: string }) => [option.label, option.subtitle])).toEqual([
      ["Blue group", "2 students"],
      ["Red group", "2 students"],
    ]);
  });

  it("a restricted curator sees their own students and their assigned groups", async () => {
    const { curator } = await audienceSchool();
    const students = await call(curator, "/t/notifications/admin/audience/options?kind=student");
    expect(students.body.data.options.map((option: { label: string }) => option.label)).toEqual(["Bekzod User", "Dilya User", "Eldor User"]);
    const groups = await call(curator, "/t/notifications/admin/audience/options?kind=group");
    expect(groups.body.data.options.map((option: { label: string }) => option.label)).toEqual(["Blue group"]);
  });

  it("400 invalid_notification_audience for a missing or unknown kind, or a bad limit", async () => {
    const { admin } = await audienceSchool();
    for (const query of ["", "kind=teacher", "kind=student&limit=0", "kind=student&limit=51"]) {
      const res = await call(admin, `/t/notifications/admin/audience/options?${query}`);
      expect({ query, ...failure(res) }).toEqual({ query, status: 400, error: "invalid_notification_audience" });
    }
  });
});
