import { createMessageBatch, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { jobContext } from "../../../src/contributors";
import type { Env, QueueMessage } from "../../../src/core/env";
import { uuidv7 } from "../../../src/core/lib/ids";
import { handleRatingWindowBatch, RATING_WINDOWS_QUEUE } from "../../../src/content/rating/windows-consumer";
import { buildWindowRun, removeStaleWindows, WINDOW_TTL_MS, WINDOWS_PER_SCHOOL } from "../../../src/content/rating/windows";
import { fixtureD1, schoolD1 } from "../../helpers/databases";
import { roundTripD1 } from "../../helpers/d1-counter";
import { adjust } from "../../helpers/rating";
import { schoolCtx } from "../../helpers/school-ctx";
import { as, assignIndividualCurator, signedIn, type Member } from "../../helpers/users";
import { envWith } from "../../helpers/wrapped-d1";
import { award, dayMs, named, ratingSchool } from "./leaderboard-fixtures";

/**
 * Window snapshots of GET /t/rating (docs/decisions/heavy-reads-rating.md, "Window snapshots"): a
 * board over a time window alone answers from the events until its snapshot is built, then from
 * the snapshot, with the same body as the events give (read through `source_types` listing every
 * type, which the snapshot never answers); the snapshot's sums equal the events' after every kind
 * of change, also while it is built run by run.
 */

const iso = (ms: number) => new Date(ms).toISOString();
const NOW = Date.now();
const FROM = NOW - 30 * dayMs;
const TO = NOW + 30 * dayMs;
const WINDOW = `from=${iso(FROM)}&to=${iso(TO)}`;
/** The same board read from the events: every source type is every event. */
const ALL_TYPES = "source_types=lesson,module,course,quiz,assignment,exam,manual";

interface WindowRow {
  id: string;
  requested_at: number;
  ready_at: number | null;
}

async function windowsOf(tenantId: string): Promise<WindowRow[]> {
  const { results } = await fixtureD1.prepare("SELECT id, requested_at, ready_at FROM rating_windows WHERE tenant_id = ? ORDER BY from_ms, to_ms").bind(tenantId).all<WindowRow>();
  return results;
}

/** The snapshot's non-zero sums, and the same sums recomputed from the events of the window. */
async function sums(tenantId: string, windowId: string, from = FROM, to = TO) {
  const kept = await fixtureD1
    .prepare("SELECT student_id, points_hundredths AS points FROM rating_window_totals WHERE tenant_id = ? AND window_id = ? AND points_hundredths <> 0 ORDER BY student_id")
    .bind(tenantId, windowId)
    .all();
  const recomputed = await fixtureD1
    .prepare(
      `SELECT student_id, sum(points_hundredths) AS points FROM point_events WHERE tenant_id = ? AND awarded_at >= ? AND awarded_at < ?
       GROUP BY student_id HAVING sum(points_hundredths) <> 0 ORDER BY student_id`,
    )
    .bind(tenantId, from, to)
    .all();
  return { kept: kept.results, recomputed: recomputed.results };
}

/** The queue's consumer on one message, as the queue would run it (the tests' queue has no consumer). */
async function consume(body: unknown) {
  const batch = createMessageBatch<QueueMessage>(RATING_WINDOWS_QUEUE, [{ id: uuidv7(), timestamp: new Date(), attempts: 1, body }] as never);
  await handleRatingWindowBatch(batch, jobContext(env as Env));
}

async function build(tenantId: string, windowId: string) {
  await consume({ kind: "rating_window", tenant_id: tenantId, window_id: windowId, after: "" });
}

/** The board over the window, and the same board read from the events. */
async function boards(member: Member, window = WINDOW) {
  const snapshot = await as(member, `/t/rating?limit=5&${window}`);
  const events = await as(member, `/t/rating?limit=5&${window}&${ALL_TYPES}`);
  expect(snapshot.status).toBe(200);
  expect(events.status).toBe(200);
  return { snapshot: snapshot.body.data, events: events.body.data };
}

async function crowd() {
  const { school, admin } = await ratingSchool();
  const ada = await named(school, "Ada", "Top");
  const bea = await named(school, "Bea", "Tie");
  const cem = await named(school, "Cem", "Tie");
  const dan = await named(school, "Dan", "Low");
  const eve = await named(school, "Eve", "Minus");
  await award(ada, 900, { awardedAt: FROM }); // from is inclusive
  await award(bea, 400, { awardedAt: NOW - dayMs });
  await award(cem, 400, { awardedAt: NOW - 2 * dayMs });
  await award(dan, 100, { awardedAt: TO - 1 });
  await award(eve, -200, { awardedAt: NOW - 3 * dayMs });
  await award(dan, 5000, { awardedAt: TO }); // to is exclusive
  await award(eve, 7000, { awardedAt: FROM - 1 });
  return { school, admin, ada, bea, cem, dan, eve };
}

describe("GET /t/rating window snapshots", () => {
  it("answers from the events until the snapshot is built, then from the snapshot with the same body, after every kind of change", async () => {
    const { school, admin, ada, bea, dan, eve } = await crowd();
    const first = await boards(bea);
    expect(first.snapshot).toEqual(first.events);
    expect(first.snapshot.entries.map((entry: { student_id: string }) => entry.student_id)).toEqual([ada.id, bea.id, expect.any(String), dan.id, expect.any(String)]);
    // The first read asked for the window: it exists, not built yet, and keeps its sums from now on.
    const [window] = await windowsOf(school.id);
    expect(window).toMatchObject({ ready_at: null });
    await award(ada, 50, { awardedAt: NOW });
    await build(school.id, window!.id);
    expect((await windowsOf(school.id))[0]!.ready_at).not.toBeNull();
    expect((await sums(school.id, window!.id)).kept).toEqual((await sums(school.id, window!.id)).recomputed);

    // Built, the board reads the snapshot: a sum changed behind the triggers' back shows (and is put back).
    const bump = (by: number) => fixtureD1.prepare("UPDATE rating_window_totals SET points_hundredths = points_hundredths + ? WHERE window_id = ? AND student_id = ?").bind(by, window!.id, ada.id).run();
    await bump(100_000);
    const tampered = await boards(bea);
    expect(Number(tampered.snapshot.entries[0].points) - Number(tampered.events.entries[0].points)).toBe(1000);
    await bump(-100_000);

    // A restricted curator sees their students only, from the snapshot as from the events.
    const curator = await signedIn(school, { role: "curator" });
    await assignIndividualCurator(dan.id, curator.id);
    const check = async () => {
      const { kept, recomputed } = await sums(school.id, window!.id);
      expect(kept).toEqual(recomputed);
      for (const member of [ada, admin, curator]) {
        const read = await boards(member);
        expect(read.snapshot).toEqual(read.events);
      }
    };
    await check();
    expect((await boards(curator)).snapshot.entries.map((entry: { student_id: string }) => entry.student_id)).toEqual([dan.id]);
    // An adjustment up and one down through the API, inside the window.
    expect((await adjust(admin, { student_id: dan.id, points: "20", reason: "Olympiad" })).status).toBe(201);
    expect((await adjust(admin, { student_id: ada.id, points: "-15.5", reason: "Correction" })).status).toBe(201);
    await check();
    // A deactivation takes the student off the board; the sums stay.
    expect((await as(admin, `/t/users/${eve.id}`, { method: "PUT", body: { is_active: false } })).status).toBe(200);
    await check();
    // A permanent deletion removes the student's events, and with them their sums.
    expect((await as(admin, `/t/users/${bea.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    await check();
    const gone = await fixtureD1.prepare("SELECT count(*) AS n FROM rating_window_totals WHERE student_id = ?").bind(bea.id).first<{ n: number }>();
    expect(gone!.n).toBe(0);
    // Events outside the window change nothing in it.
    await award(ada, 3000, { awardedAt: TO + dayMs });
    await check();
  });

  it("built run by run while events arrive before and after the run's cursor, the sums equal the events'", async () => {
    const { school } = await ratingSchool();
    const students = [];
    for (let index = 0; index < 7; index += 1) students.push(await named(school, `S${index}`, "Run"));
    for (const [index, student] of students.entries()) await award(student, 100 + index, { awardedAt: NOW - index * dayMs });
    const student = students[0]!;
    await as(student, `/t/rating?limit=5&${WINDOW}`);
    const [window] = await windowsOf(school.id);
    const ctx = await schoolCtx(school.id);
    const ordered = [...students].sort((a, b) => (a.id < b.id ? -1 : 1));
    let after = "";
    let runs = 0;
    for (;;) {
      const run = await buildWindowRun(ctx, { windowId: window!.id, after, run: 2 });
      runs += 1;
      // Between runs: an event of a student already summed, one of a student not reached yet, and one removed.
      await award(ordered[0]!, 7, { awardedAt: NOW });
      await award(ordered.at(-1)!, 11, { awardedAt: NOW });
      await fixtureD1.prepare("DELETE FROM point_events WHERE id = (SELECT id FROM point_events WHERE tenant_id = ? AND student_id = ? LIMIT 1)").bind(school.id, ordered[runs]!.id).run();
      if (run.done) break;
      after = run.last!;
    }
    expect(runs).toBe(4);
    expect((await windowsOf(school.id))[0]!.ready_at).not.toBeNull();
    const { kept, recomputed } = await sums(school.id, window!.id);
    expect(kept).toEqual(recomputed);
    expect(kept.length).toBeGreaterThan(0);
  });

  it("costs two round trips with the guard's once built, three when it asks for the snapshot", async () => {
    const { school, ada } = await crowd();
    const measured = async (member: Member) => {
      const trips = roundTripD1(await schoolD1(member.tenantId));
      const headers = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
      const response = await app.request(`https://api.lms.localhost/api/v1/t/rating?limit=5&${WINDOW}`, { headers }, envWith(trips.db));
      expect(response.status).toBe(200);
      return trips.roundTrips();
    };
    expect(await measured(ada)).toBe(3);
    // Asked for within the debounce and not built yet: no write, no message.
    expect(await measured(ada)).toBe(3);
    await build(school.id, (await windowsOf(school.id))[0]!.id);
    expect(await measured(ada)).toBe(2);
  });

  it("a window not asked for within the TTL is read from the events and asked for again, kept exact; unasked ones are removed with their sums", async () => {
    const { school, bea } = await crowd();
    await as(bea, `/t/rating?limit=5&${WINDOW}`);
    const other = `from=${iso(FROM - dayMs)}&to=${iso(TO)}`;
    await as(bea, `/t/rating?limit=5&${other}`);
    // In from order: `other` starts a day earlier.
    for (const row of await windowsOf(school.id)) await build(school.id, row.id);
    const [kept, older] = await windowsOf(school.id);
    // Both expire; then a read of one of them asks again, which refreshes it without a rebuild.
    await fixtureD1.prepare("UPDATE rating_windows SET requested_at = requested_at - ? WHERE tenant_id = ?").bind(WINDOW_TTL_MS, school.id).run();
    await award(bea, 300, { awardedAt: NOW });
    const read = await boards(bea, other);
    expect(read.snapshot).toEqual(read.events);
    const refreshed = (await windowsOf(school.id)).find((row) => row.id === kept!.id)!;
    expect(refreshed.ready_at).toBe(kept!.ready_at);
    expect(refreshed.requested_at).toBeGreaterThan(kept!.requested_at);
    expect(await removeStaleWindows(await schoolCtx(school.id))).toBe(1);
    expect((await windowsOf(school.id)).map((row) => row.id)).toEqual([kept!.id]);
    const left = await fixtureD1.prepare("SELECT count(*) AS n FROM rating_window_totals WHERE tenant_id = ? AND window_id = ?").bind(school.id, older!.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
    const { kept: sumsKept, recomputed } = await sums(school.id, kept!.id, FROM - dayMs, TO);
    expect(sumsKept).toEqual(recomputed);
    const again = await boards(bea, other);
    expect(again.snapshot).toEqual(again.events);
  });

  it(`keeps at most ${WINDOWS_PER_SCHOOL} windows per school; a board over one more reads the events`, async () => {
    const { school, bea } = await crowd();
    for (let index = 0; index <= WINDOWS_PER_SCHOOL; index += 1) {
      const read = await boards(bea, `from=${iso(FROM - index * 1000)}&to=${iso(TO)}`);
      expect(read.snapshot).toEqual(read.events);
    }
    expect(await windowsOf(school.id)).toHaveLength(WINDOWS_PER_SCHOOL);
  });

  it("drops messages it cannot use and ignores a window that is gone", async () => {
    const { school } = await ratingSchool();
    for (const body of [null, { kind: "rating_window" }, { kind: "rating_window", tenant_id: school.id, window_id: "x", after: "" }, { kind: "rating_window", tenant_id: school.id, window_id: uuidv7(), after: "1 OR 1" }]) {
      await consume(body);
    }
    await build(school.id, uuidv7());
    expect(await windowsOf(school.id)).toEqual([]);
  });
});
