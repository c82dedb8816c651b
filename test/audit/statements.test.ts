import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { schoolD1 } from "../helpers/databases";
import { signInOn, schoolWithStudent } from "../helpers/devices";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { createUser } from "../helpers/factories";
import { schoolWithAdmin, signedIn } from "../helpers/users";
import { wrapD1, envWith } from "../helpers/wrapped-d1";
import { submissionSchool, submitted } from "../content/submissions/helpers";
import { auditRows } from "./content-helpers";

/**
 * Writing an entry adds no round trip (docs/decisions/audit.md, "Written in the batch of the
 * change"): each audited write below is counted trip by trip on the school's shard, the entry's
 * INSERT found in the same batch as the change's own statement, and a request that writes no entry
 * (the same values again) costs the same trips.
 */

type Trip = string[];

/** Wraps the school's shard so every round trip is recorded as the SQL it carried (a batch: all of its statements). */
function recordingD1(inner: D1Database) {
  const trips: Trip[] = [];
  const sqlOf = new WeakMap<object, string>();
  const wrapStatement = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const proxy: D1PreparedStatement = new Proxy(statement, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property === "bind") return (...args: unknown[]) => wrapStatement((value as (...a: unknown[]) => D1PreparedStatement).apply(target, args), sql);
        if (property === "first" || property === "all" || property === "run" || property === "raw") {
          return (...args: unknown[]) => {
            trips.push([sql]);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    sqlOf.set(proxy, sql);
    return proxy;
  };
  const db = wrapD1(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "prepare") {
        return (query: string) => {
          return wrapStatement(target.prepare(query), query);
        };
      }
      if (property === "batch") {
        return (statements: D1PreparedStatement[]) => {
          trips.push(statements.map((statement) => sqlOf.get(statement) ?? "?"));
          return target.batch(statements);
        };
      }
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db, trips };
}

const AUDIT_INSERT = /insert into "?audit_entries"?/i;

/** The request as the member with its shard recorded: the trips' sizes and which trip holds the entry's INSERT beside `change`. */
async function recorded(member: { token: string; subdomain: string; tenantId: string }, method: string, path: string, body: unknown, change: RegExp) {
  const recording = recordingD1(await schoolD1(member.tenantId));
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method, headers, body: body === undefined ? undefined : JSON.stringify(body) },
    envWith(recording.db),
  );
  await response.arrayBuffer();
  const { trips } = recording;
  return {
    status: response.status,
    trips: trips.length,
    auditTrips: trips.flatMap((trip, index) => (trip.some((sql) => AUDIT_INSERT.test(sql)) ? [index] : [])),
    changeTrips: trips.flatMap((trip, index) => (trip.some((sql) => change.test(sql)) ? [index] : [])),
  };
}

const entries = async (tenantId: string) => (await auditRows(tenantId)).map((row) => row.action);

describe("an audited write costs no extra round trip", () => {
  it("PUT /t/users/:id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student", firstName: "Bob" });
    const change = /^update "?users"?/i;
    const first = await recorded(admin, "PUT", `/t/users/${student.id}`, { first_name: "Rob" }, change);
    const again = await recorded(admin, "PUT", `/t/users/${student.id}`, { first_name: "Rob" }, change);
    // The auth check, then one batch: the entry's INSERT beside the UPDATE; the same values again write no entry in the same trips.
    expect(first).toEqual({ status: 200, trips: 2, auditTrips: [1], changeTrips: [1] });
    expect(again).toEqual(first);
    expect(await entries(school.id)).toEqual(["user.updated"]);
  });

  it("POST /t/users/:id/devices/:device_id/block", async () => {
    const { admin, student } = await schoolWithStudent();
    const device = await signInOn(student);
    const change = /^update "?auth_devices"?/i;
    const path = `/t/users/${student.id}/devices/${device.authDeviceId}/block`;
    const first = await recorded(admin, "POST", path, { reason: "Lost" }, change);
    const again = await recorded(admin, "POST", path, { reason: "Lost" }, change);
    // The auth check, two reads (the user, the device), then the write batch with the entry; a second block writes none.
    expect(first).toEqual({ status: 200, trips: 4, auditTrips: [3], changeTrips: [3] });
    expect(again).toEqual(first);
    expect(await entries(admin.tenantId)).toEqual(["device.blocked"]);
  });

  it("DELETE /t/courses/:id/enrollments/:student_id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const student = await createUser(school.id, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const change = /^(update|delete from) "?enrollment/i;
    const first = await recorded(admin, "DELETE", `/t/courses/${tree.courseId}/enrollments/${student.id}`, undefined, change);
    // The auth check, the push settings, then one batch holding the removal and its entry.
    expect(first).toEqual({ status: 204, trips: 3, auditTrips: [2], changeTrips: [2] });
    expect(await entries(school.id)).toEqual(["enrollment.removed"]);
  });

  it("POST /t/submissions/:id/review", async () => {
    const { school, admin, student, assignment } = await submissionSchool({ maxScoreHundredths: 10_000 });
    const id = await submitted(student, assignment.id);
    const change = /^update "?submissions"?/i;
    const first = await recorded(admin, "POST", `/t/submissions/${id}/review`, { status: "accepted", score: "87.5" }, change);
    expect(first).toEqual({ status: 200, trips: 3, auditTrips: [2], changeTrips: [2] });
    expect(await entries(school.id)).toEqual(["submission.reviewed"]);
  });

  it("POST /t/admin/rating/adjustments", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const change = /^insert into "?point_events"?/i;
    const body = { student_id: student.id, points: "3", reason: "Counted", idempotency_key: "counted" };
    const first = await recorded(admin, "POST", "/t/admin/rating/adjustments", body, change);
    const replay = await recorded(admin, "POST", "/t/admin/rating/adjustments", body, change);
    // One read batch and one write batch after the auth check; the replayed key is the reads alone.
    expect(first).toEqual({ status: 201, trips: 3, auditTrips: [2], changeTrips: [2] });
    expect(replay).toEqual({ status: 200, trips: 2, auditTrips: [], changeTrips: [] });
    expect(await entries(school.id)).toEqual(["rating.adjusted"]);
  });

  it("PUT /t/users/:id/accommodation", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const change = /^insert into "?accommodation/i;
    const body = { time_multiplier: "1.50", extra_time_seconds: 30, extra_attempts: 2, note: null };
    const first = await recorded(admin, "PUT", `/t/users/${student.id}/accommodation`, body, change);
    const again = await recorded(admin, "PUT", `/t/users/${student.id}/accommodation`, body, change);
    // The same profile again leaves the entry out of the batch, which keeps its trips.
    expect(first).toEqual({ status: 200, trips: 3, auditTrips: [2], changeTrips: [2] });
    expect(again).toEqual({ status: 200, trips: 3, auditTrips: [], changeTrips: [2] });
    expect(await entries(school.id)).toEqual(["accommodation.set"]);
  });
});
