import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { curatorAnalyticsSeedSql } from "../../../scripts/bench/curator-analytics.mjs";
import { app } from "../../../src/app";
import { jobContext } from "../../../src/contributors";
import type { Env, QueueMessage } from "../../../src/core/env";
import { uuidv7 } from "../../../src/core/lib/ids";
import { CURATOR_REPORTS_QUEUE, handleCuratorReportBatch } from "../../../src/content/analytics/reports-consumer";
import { REPORTS_PER_SCHOOL, runReport } from "../../../src/content/analytics/reports";
import { roundTripD1 } from "../../helpers/d1-counter";
import { createSchool } from "../../helpers/factories";
import { fixtureD1, schoolD1 } from "../../helpers/databases";
import { schoolCtx } from "../../helpers/school-ctx";
import { signedIn, type Member } from "../../helpers/users";
import { envWith } from "../../helpers/wrapped-d1";
import { curatorAnalytics } from "./helpers";

/**
 * Snapshots of GET /analytics/curators (docs/decisions/heavy-reads-curators.md, "Curator analytics
 * snapshots"): a query's first read answers live and asks for a run; the queue sums the figures
 * slice by slice of students; later reads answer from the snapshot, whose body equals the live
 * answer for every kind of query; a stale snapshot is served while a new run is asked for, a very
 * old one is not served; the school's reports are capped and expire.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

interface Header {
  id: string;
  run_id: string | null;
  served_run: string | null;
  computed_at: number | null;
  requested_at: number;
}

async function seeded() {
  const school = await createSchool();
  const text = curatorAnalyticsSeedSql({ tenantId: school.id, idBase: uuidv7().slice(0, 18), now: Date.now(), curators: 20, students: 2000 });
  const statements = text.split(/;\n/).map((statement) => statement.trim()).filter((statement) => statement.length > 0);
  await fixtureD1.batch(statements.map((statement) => fixtureD1.prepare(statement)));
  return { school, admin: await signedIn(school, { role: "admin" }) };
}

async function headers(tenantId: string): Promise<Header[]> {
  const { results } = await fixtureD1
    .prepare("SELECT id, run_id, served_run, computed_at, requested_at FROM curator_reports WHERE tenant_id = ? ORDER BY id")
    .bind(tenantId)
    .all<Header>();
  return results;
}

async function consume(body: unknown) {
  const batch = createMessageBatch<QueueMessage>(CURATOR_REPORTS_QUEUE, [{ id: uuidv7(), timestamp: new Date(), attempts: 1, body }] as never);
  await handleCuratorReportBatch(batch, jobContext(env as Env));
}

const message = (tenantId: string, header: Header) => ({ kind: "curator_report", tenant_id: tenantId, report_id: header.id, run_id: header.run_id });

/** Runs every run the school's reads asked for, as the queue would. */
async function runAsked(tenantId: string) {
  for (const header of await headers(tenantId)) if (header.run_id) await consume(message(tenantId, header));
}

async function read(member: Member, query: string) {
  const res = await curatorAnalytics(member, query);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

async function roundTrips(member: Member, query: string) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const auth = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  const response = await app.request(`https://api.lms.localhost/api/v1/t/analytics/curators${query}`, { headers: auth }, envWith(trips.db));
  expect(response.status).toBe(200);
  return trips.roundTrips();
}

const figuresOf = (data: any) => ({ summary: data.summary, curators: data.curators, exam_applicable: data.exam_applicable, from: data.from });

describe("GET /analytics/curators: snapshots", () => {
  it("a snapshot's answer equals the live answer for every kind of query, in slices of students", async () => {
    const { school, admin } = await seeded();
    const ids = async (table: string) =>
      (await fixtureD1.prepare(`SELECT id FROM ${table} WHERE tenant_id = ? ORDER BY id`).bind(school.id).all<{ id: string }>()).results.map((row) => row.id);
    const [course] = await ids("courses");
    const [lesson] = await ids("lessons");
    const groups = await ids("groups");
    const curators = (await fixtureD1.prepare("SELECT id FROM users WHERE tenant_id = ? AND role = 'curator' ORDER BY id").bind(school.id).all<{ id: string }>()).results;
    const period = `from=${new Date(Date.now() - 40 * DAY).toISOString()}&to=${new Date(Date.now() + DAY).toISOString()}`;
    const queries = [
      "",
      `?${period}`,
      `?${period}&curator_id=${curators[3]!.id}`,
      `?${period}&group_id=${groups[2]}`,
      `?${period}&course_id=${course}`,
      `?${period}&lesson_id=${lesson}&group_id=${groups[1]}`,
    ];
    const live = new Map<string, any>();
    for (const query of queries) live.set(query, await read(admin, query));
    const asked = await headers(school.id);
    expect(asked.map((header) => ({ asked: header.run_id !== null, served: header.served_run }))).toEqual(queries.map(() => ({ asked: true, served: null })));
    await runAsked(school.id);
    for (const query of queries) {
      const snapshot = await read(admin, query);
      expect({ query, ...figuresOf(snapshot) }).toEqual({ query, ...figuresOf(live.get(query)) });
      // The figures hold for the instant the first read asked for them.
      expect({ query, computed_at: snapshot.computed_at }).toEqual({ query, computed_at: live.get(query).computed_at });
    }
    // With `to` in the query it is the query's; without, the instant computed.
    expect(live.get("").to).toBe(live.get("").computed_at);
    expect((await read(admin, "")).to).toBe(live.get("").computed_at);
    // Slices of 250 students: the figures are not a single slice's.
    expect(live.get(`?${period}`).summary.students).toBe(1960);
    // Built: answered from the snapshot in the guard's round trip and one more.
    expect(await roundTrips(admin, `?${period}`)).toBe(2);
    expect((await headers(school.id)).every((header) => header.run_id === null && header.served_run !== null)).toBe(true);
  });

  it("is answered from the snapshot while young, served stale while a run is asked for, and read live once too old", async () => {
    const { school, admin } = await seeded();
    const query = `?from=${new Date(Date.now() - 40 * DAY).toISOString()}&to=${new Date(Date.now() + DAY).toISOString()}`;
    const live = await read(admin, query);
    await runAsked(school.id);
    const [built] = await headers(school.id);
    // A figure changed behind the run's back shows: the answer is the snapshot's.
    await fixtureD1.prepare("UPDATE curator_report_rows SET active = active + 1 WHERE tenant_id = ? AND curator_id = ''").bind(school.id).run();
    expect((await read(admin, query)).summary.active.students).toBe(live.summary.active.students + 1);
    expect((await headers(school.id))[0]).toEqual(built);

    // Older than a minute: still served, and a run is asked for once.
    const computedAt = Date.now() - 2 * MINUTE;
    await fixtureD1.prepare("UPDATE curator_reports SET computed_at = ? WHERE tenant_id = ?").bind(computedAt, school.id).run();
    const stale = await read(admin, query);
    expect(stale.summary.active.students).toBe(live.summary.active.students + 1);
    expect(stale.computed_at).toBe(new Date(computedAt).toISOString());
    const [asked] = await headers(school.id);
    expect(asked!.run_id).not.toBeNull();
    expect(asked!.run_id).not.toBe(built!.served_run);
    // Within the debounce no second run is asked for.
    await read(admin, query);
    expect((await headers(school.id))[0]!.run_id).toBe(asked!.run_id);
    // The run replaces the snapshot: exact again, the changed row gone with the old run.
    await runAsked(school.id);
    const fresh = await read(admin, query);
    expect(figuresOf(fresh)).toEqual(figuresOf(live));
    expect(Date.parse(fresh.computed_at)).toBeGreaterThan(computedAt);
    const runs = await fixtureD1.prepare("SELECT DISTINCT run_id FROM curator_report_rows WHERE tenant_id = ?").bind(school.id).all<{ run_id: string }>();
    expect(runs.results).toEqual([{ run_id: asked!.run_id }]);

    // Older than ten minutes: answered live (the changed row does not show), and a run is asked for.
    await fixtureD1.prepare("UPDATE curator_report_rows SET active = active + 1 WHERE tenant_id = ? AND curator_id = ''").bind(school.id).run();
    await fixtureD1.prepare("UPDATE curator_reports SET computed_at = ? WHERE tenant_id = ?").bind(Date.now() - 11 * MINUTE, school.id).run();
    const old = await read(admin, query);
    expect(figuresOf(old)).toEqual(figuresOf(live));
    expect(Date.parse(old.computed_at)).toBeGreaterThan(Date.now() - MINUTE);
    expect((await headers(school.id))[0]!.run_id).not.toBeNull();
  });

  it("a run in several messages, a repeated message and two consumers of one run add every student once", async () => {
    const { school, admin } = await seeded();
    const query = `?from=${new Date(Date.now() - 40 * DAY).toISOString()}&to=${new Date(Date.now() + DAY).toISOString()}`;
    const live = await read(admin, query);
    const [header] = await headers(school.id);
    const ctx = await schoolCtx(school.id);
    expect(await runReport(ctx, { reportId: header!.id, runId: header!.run_id!, slices: 3 })).toMatchObject({ state: "more", slices: 3 });
    expect(await runReport(ctx, { reportId: header!.id, runId: header!.run_id!, slices: 2 })).toMatchObject({ state: "more", slices: 2 });
    // Two consumers of the same message: each slice is added by whichever moves the cursor first.
    await Promise.all([consume(message(school.id, header!)), consume(message(school.id, header!))]);
    expect(figuresOf(await read(admin, query))).toEqual(figuresOf(live));
    // The message again, after the run ended: nothing changes.
    const rows = async () => (await fixtureD1.prepare("SELECT * FROM curator_report_rows WHERE tenant_id = ? ORDER BY curator_id").bind(school.id).all()).results;
    const before = await rows();
    await consume(message(school.id, header!));
    expect(await runReport(ctx, { reportId: header!.id, runId: header!.run_id!, slices: 1 })).toEqual({ state: "gone", slices: 0, slowestMs: 0 });
    expect(await rows()).toEqual(before);
  });

  it("a curator's own call has its own snapshot; a curator with no students gets a row of zeros", async () => {
    const { school, admin } = await seeded();
    const curator = await signedIn(school, { role: "curator" });
    const own = await read(curator, "");
    const all = await read(admin, "");
    await runAsked(school.id);
    expect(figuresOf(await read(curator, ""))).toEqual(figuresOf(own));
    expect(figuresOf(await read(admin, ""))).toEqual(figuresOf(all));
    expect(own.curators).toEqual([expect.objectContaining({ curator_id: curator.id, students: 0, active: { students: 0, rate_pct: null } })]);
    expect(all.summary.curators).toBe(21);
    expect(await headers(school.id)).toHaveLength(2);
  });

  it("a school keeps at most its cap of reports; the rest answer live. Reports nobody asked for expire", async () => {
    const { school, admin } = await seeded();
    const now = Date.now();
    const filler = Array.from({ length: REPORTS_PER_SCHOOL }, (_, n) =>
      fixtureD1
        .prepare("INSERT INTO curator_reports (id, tenant_id, report_key, from_ms, requested_at) VALUES (?, ?, ?, 0, ?)")
        .bind(uuidv7(), school.id, `filler ${n}`, n === 0 ? now - 8 * DAY : now),
    );
    await fixtureD1.batch(filler);
    // One filler expired: room for exactly one more.
    const first = `?from=${new Date(now - 40 * DAY).toISOString()}&to=${new Date(now + DAY).toISOString()}`;
    const second = `?from=${new Date(now - 41 * DAY).toISOString()}&to=${new Date(now + DAY).toISOString()}`;
    const live = await read(admin, first);
    expect(figuresOf(await read(admin, second))).toEqual({ ...figuresOf(live), from: new Date(now - 41 * DAY).toISOString() });
    expect(await headers(school.id)).toHaveLength(REPORTS_PER_SCHOOL + 1);
    // The run of the new report removes the expired one, with its rows.
    await fixtureD1.prepare("INSERT INTO curator_report_rows (tenant_id, report_id, run_id, curator_id, students, active, on_time, quizzes, exams) SELECT tenant_id, id, 'old', '', 1, 1, 1, 1, 1 FROM curator_reports WHERE tenant_id = ? AND report_key = 'filler 0'").bind(school.id).run();
    await runAsked(school.id);
    const left = await headers(school.id);
    expect(left).toHaveLength(REPORTS_PER_SCHOOL);
    expect((await fixtureD1.prepare("SELECT count(*) AS n FROM curator_report_rows WHERE tenant_id = ? AND run_id = 'old'").bind(school.id).first())!.n).toBe(0);
    expect(figuresOf(await read(admin, first))).toEqual(figuresOf(live));
  });

  it("drops messages it cannot use and ignores a run that is gone", async () => {
    const { school } = await seeded();
    for (const body of [null, { kind: "rating_window" }, { kind: "curator_report", tenant_id: "x", report_id: uuidv7(), run_id: uuidv7() }, { kind: "curator_report", tenant_id: school.id, report_id: 5, run_id: uuidv7() }]) {
      await consume(body);
    }
    await consume({ kind: "curator_report", tenant_id: school.id, report_id: uuidv7(), run_id: uuidv7() });
    expect(await headers(school.id)).toEqual([]);
  });
});
