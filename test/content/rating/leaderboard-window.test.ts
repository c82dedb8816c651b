import { describe, expect, it } from "vitest";
import { as } from "../../helpers/users";
import { award, day, dayMs, named, ratingSchool } from "./leaderboard-fixtures";

/**
 * GET /t/rating with a time window, as the window's sums decide it: the page cut among ties, the
 * unranked students' sums kept out of the page and the counts, students at 0 with events, negative
 * sums, the caller's rank, and the board following every kind of event as it happens (adjustments
 * up and down, a deactivation, a deletion), each checked against the figures recomputed by hand.
 */

const row = (rank: number, member: { id: string }, display_name: string, points: string) => ({ rank, student_id: member.id, display_name, points });
const iso = (ms: number) => new Date(ms).toISOString();
const window = `from=${iso(day(10))}&to=${iso(day(20))}`;

async function crowd() {
  const { school, admin } = await ratingSchool();
  const ada = await named(school, "Ada", "Top");
  const bea = await named(school, "Bea", "Tie");
  const cem = await named(school, "Cem", "Tie");
  const dan = await named(school, "Dan", "Tie");
  const eve = await named(school, "Eve", "Low");
  const ivo = await named(school, "Ivo", "Gone", { isActive: false });
  const zoe = await named(school, "Zoe", "Even");
  const neg = await named(school, "Nil", "Minus");
  const out = await named(school, "Oto", "Outside");
  await award(ada, 500, { awardedAt: day(10) }); // from is inclusive
  for (const tied of [dan, bea, cem]) await award(tied, 300, { awardedAt: day(12) });
  await award(eve, 100, { awardedAt: day(20) - 1 });
  await award(ivo, 900, { awardedAt: day(15) }); // inactive: never ranked, never counted
  await award(zoe, 250, { awardedAt: day(11) });
  await award(zoe, -250, { awardedAt: day(13) }); // back at 0 inside the window
  await award(neg, -150, { awardedAt: day(14) });
  await award(out, 5000, { awardedAt: day(20) }); // to is exclusive
  await award(out, 4000, { awardedAt: day(10) - 1 });
  return { school, admin, ada, bea, cem, dan, eve, ivo, zoe, neg, out };
}

describe("GET /t/rating over a time window", () => {
  it("cuts the page among tied sums by name, ignoring an inactive student's higher sum", async () => {
    const s = await crowd();
    const two = await as(s.admin, `/t/rating?limit=2&${window}`);
    expect(two.status).toBe(200);
    expect(two.body.data).toEqual({
      entries: [row(1, s.ada, "Ada Top", "5.00"), row(2, s.bea, "Bea Tie", "3.00")],
      total_students: 8,
      time_window: { from: iso(day(10)), to: iso(day(20)) },
    });
    const four = await as(s.admin, `/t/rating?limit=4&${window}`);
    expect(four.body.data.entries).toEqual([row(1, s.ada, "Ada Top", "5.00"), row(2, s.bea, "Bea Tie", "3.00"), row(2, s.cem, "Cem Tie", "3.00"), row(2, s.dan, "Dan Tie", "3.00")]);
  });

  it("puts students at 0 (with or without events) after the positive sums by name, then the negative ones", async () => {
    const s = await crowd();
    const all = await as(s.admin, `/t/rating?limit=50&${window}`);
    expect(all.body.data.entries).toEqual([
      row(1, s.ada, "Ada Top", "5.00"),
      row(2, s.bea, "Bea Tie", "3.00"),
      row(2, s.cem, "Cem Tie", "3.00"),
      row(2, s.dan, "Dan Tie", "3.00"),
      row(5, s.eve, "Eve Low", "1.00"),
      row(6, s.out, "Oto Outside", "0.00"),
      row(6, s.zoe, "Zoe Even", "0.00"),
      row(8, s.neg, "Nil Minus", "-1.50"),
    ]);
    expect(all.body.data.total_students).toBe(8);
  });

  it("ranks a student caller by the window's sums: below zero every student at 0 is above", async () => {
    const s = await crowd();
    const low = await as(s.neg, `/t/rating?limit=1&${window}`);
    expect(low.body.data).toEqual({
      entries: [row(1, s.ada, "Ada T.", "5.00")],
      total_students: 8,
      caller_rank: 8,
      caller_points: "-1.50",
      time_window: { from: iso(day(10)), to: iso(day(20)) },
    });
    const tied = await as(s.cem, `/t/rating?limit=1&${window}`);
    expect(tied.body.data).toMatchObject({ caller_rank: 2, caller_points: "3.00" });
    const zero = await as(s.out, `/t/rating?limit=1&${window}`);
    expect(zero.body.data).toMatchObject({ caller_rank: 6, caller_points: "0.00" });
  });

  it("follows adjustments up and down, a deactivation and a deletion as they happen", async () => {
    const { school, admin } = await ratingSchool();
    const ann = await named(school, "Ann", "One");
    const ben = await named(school, "Ben", "Two");
    const cas = await named(school, "Cas", "Three");
    const now = Date.now();
    const around = `from=${iso(now - dayMs)}&to=${iso(now + dayMs)}`;
    const board = async (caller = admin) => (await as(caller, `/t/rating?limit=10&${around}`)).body.data;
    const adjust = async (student: { id: string }, points: string) =>
      expect((await as(admin, "/t/admin/rating/adjustments", { method: "POST", body: { student_id: student.id, points, reason: "window" } })).status).toBe(201);

    await adjust(ann, "4.00");
    await adjust(ben, "6.50");
    expect((await board()).entries).toEqual([row(1, ben, "Ben Two", "6.50"), row(2, ann, "Ann One", "4.00"), row(3, cas, "Cas Three", "0.00")]);

    await adjust(ben, "-3.00");
    await adjust(cas, "-0.25");
    expect((await board(ann)).entries).toEqual([row(1, ann, "Ann One", "4.00"), row(2, ben, "Ben T.", "3.50"), row(3, cas, "Cas T.", "-0.25")]);
    expect(await board(cas)).toMatchObject({ total_students: 3, caller_rank: 3, caller_points: "-0.25" });

    expect((await as(admin, `/t/users/${ann.id}`, { method: "PUT", body: { is_active: false } })).status).toBe(200);
    expect(await board(cas)).toMatchObject({
      entries: [row(1, ben, "Ben T.", "3.50"), row(2, cas, "Cas Three", "-0.25")],
      total_students: 2,
      caller_rank: 2,
    });

    expect((await as(admin, `/t/users/${ben.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await board(cas)).toMatchObject({ entries: [row(1, cas, "Cas Three", "-0.25")], total_students: 1, caller_rank: 1 });
  });
});
