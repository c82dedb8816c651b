import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { setClockForTests } from "../../../src/core/lib/clock";
import { createSchool } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { signedIn, type Member } from "../../helpers/users";
import { curatorAnalytics } from "./helpers";

/** GET /analytics/curators: who may call it, its query's failures and the default period. */
describe("GET /analytics/curators: gate, validation and defaults", () => {
  let admin: Member;
  let curator: Member;
  let student: Member;

  beforeAll(async () => {
    const school = await createSchool({ timezone: "Asia/Tashkent" });
    admin = await signedIn(school, { role: "admin" });
    curator = await signedIn(school, { role: "curator" });
    student = await signedIn(school, { role: "student" });
  });

  afterEach(() => setClockForTests(null));

  it("403 forbidden for a student; a curator without any flag passes", async () => {
    expect(failure(await curatorAnalytics(student))).toEqual({ status: 403, error: "forbidden" });
    expect((await curatorAnalytics(curator)).status).toBe(200);
  });

  it("400 invalid_from for a from that is not RFC 3339 with a zone", async () => {
    for (const from of ["yesterday", "2025-03-01", "2025-03-01T00:00:00", ""]) {
      expect({ from, ...failure(await curatorAnalytics(admin, `?from=${encodeURIComponent(from)}&to=2025-03-31T00:00:00Z`)) }).toEqual({ from, status: 400, error: "invalid_from" });
    }
  });

  it("400 invalid_to for a to that is not RFC 3339 with a zone", async () => {
    for (const to of ["now", "2025-03-31", "31.03.2025"]) {
      expect({ to, ...failure(await curatorAnalytics(admin, `?from=2025-03-01T00:00:00Z&to=${encodeURIComponent(to)}`)) }).toEqual({ to, status: 400, error: "invalid_to" });
    }
    // from is checked first
    expect(failure(await curatorAnalytics(admin, "?from=x&to=y"))).toEqual({ status: 400, error: "invalid_from" });
  });

  it("400 invalid_date_range when from is later than to, also against the defaults; from = to is one instant", async () => {
    expect(failure(await curatorAnalytics(admin, "?from=2025-03-02T00:00:00Z&to=2025-03-01T23:59:59Z"))).toEqual({ status: 400, error: "invalid_date_range" });
    expect(failure(await curatorAnalytics(admin, "?from=2999-01-01T00:00:00Z"))).toEqual({ status: 400, error: "invalid_date_range" });
    expect(failure(await curatorAnalytics(admin, "?to=2000-01-01T00:00:00Z"))).toEqual({ status: 400, error: "invalid_date_range" });
    expect((await curatorAnalytics(admin, "?from=2025-03-01T05:00:00%2B05:00&to=2025-03-01T00:00:00Z")).body.data).toMatchObject({ from: "2025-03-01T00:00:00.000Z", to: "2025-03-01T00:00:00.000Z" });
  });

  it("400 invalid_params for a malformed uuid filter", async () => {
    for (const name of ["curator_id", "group_id", "course_id", "module_id", "lesson_id"]) {
      expect({ name, ...failure(await curatorAnalytics(admin, `?${name}=nope`)) }).toEqual({ name, status: 400, error: "invalid_params" });
    }
  });

  it("defaults: from the start of the current month in the school's time zone, to now", async () => {
    // 20:00 UTC on February 28 is already March 1 in Tashkent (UTC+5).
    setClockForTests({ now: () => Date.parse("2025-02-28T20:00:00Z") });
    const res = await curatorAnalytics(admin);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ from: "2025-02-28T19:00:00.000Z", to: "2025-02-28T20:00:00.000Z", exam_applicable: true });
  });

  it("defaults follow daylight saving: a New York school's March begins at 05:00 UTC while the clock reads EDT", async () => {
    const school = await createSchool({ timezone: "America/New_York" });
    const nyAdmin = await signedIn(school, { role: "admin" });
    setClockForTests({ now: () => Date.parse("2025-03-20T12:00:00Z") });
    const res = await curatorAnalytics(nyAdmin);
    expect(res.body.data).toMatchObject({ from: "2025-03-01T05:00:00.000Z", to: "2025-03-20T12:00:00.000Z" });
  });

  it("an admin of a school without curators gets an empty list", async () => {
    const school = await createSchool();
    const lone = await signedIn(school, { role: "admin" });
    const res = await curatorAnalytics(lone);
    expect(res.body.data.curators).toEqual([]);
    expect(res.body.data.summary).toMatchObject({ curators: 0, students: 0, active: { students: 0, rate_pct: null } });
  });
});
