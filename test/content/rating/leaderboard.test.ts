import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../src/core/lib/clock";
import { createSchool } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, signedIn, unknownId } from "../../helpers/users";
import { award, named, ratingSchool } from "./leaderboard-fixtures";
import { fixtureD1 } from "../../helpers/databases";

/**
 * GET /t/rating over the stored totals: the population (active students only), competition
 * ranking with ties by display name, zero-point and negative students, the projection per role
 * and the group filter.
 */

async function board() {
  const { school, admin } = await ratingSchool();
  const lola = await named(school, "Lola", "Bakirova");
  const aziz = await named(school, "Aziz", "Karimov");
  const timur = await named(school, "Timur", "Usmonov");
  const bek = await named(school, "Bek", "Aliev");
  const nodira = await named(school, "Nodira", "Saidova");
  const olim = await named(school, "Olim", "Rasulov");
  const inactive = await named(school, "Zarina", "Inactive", { isActive: false });
  const deleted = await named(school, "Yusuf", "Deleted");
  await award(lola, 1000);
  await award(lola, 2000);
  await award(aziz, 3000);
  await award(timur, 1000);
  await award(nodira, 500);
  await award(nodira, -500);
  await award(olim, -250);
  await award(inactive, 10_000);
  await award(deleted, 5000);
  await fixtureD1.prepare("UPDATE users SET deleted_at = ? WHERE id = ?").bind(Date.now(), deleted.id).run();
  // A student who became staff keeps their totals row, outside the board.
  const former = await named(school, "Former", "Student");
  await award(former, 4000);
  await fixtureD1.prepare("UPDATE users SET role = 'curator' WHERE id = ?").bind(former.id).run();
  const foreign = await ratingSchool();
  await award(await named(foreign.school, "Far", "Away"), 100_000);
  // A restricted curator: Timur and Olim individually, Lola through the group they curate.
  const curator = await signedIn(school, { role: "curator" });
  await assignIndividualCurator(timur.id, curator.id);
  await assignIndividualCurator(olim.id, curator.id);
  const curated = await createGroup(school.id, { name: "Curated" });
  await addGroupCurator(curated, curator.id);
  await addMember(curated, lola.id);
  return { school, admin, curator, curated, lola, aziz, timur, bek, nodira, olim, foreign };
}

const entry = (rank: number, member: { id: string }, display_name: string, points: string) => ({ rank, student_id: member.id, display_name, points });

describe("GET /t/rating (stored totals)", () => {
  it("ranks every active student (1, 1, 3; ties by display name; zero and negative totals) with full names for an admin", async () => {
    const s = await board();
    const res = await as(s.admin, "/t/rating");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      entries: [
        entry(1, s.aziz, "Aziz Karimov", "30.00"),
        entry(1, s.lola, "Lola Bakirova", "30.00"),
        entry(3, s.timur, "Timur Usmonov", "10.00"),
        entry(4, s.bek, "Bek Aliev", "0.00"),
        entry(4, s.nodira, "Nodira Saidova", "0.00"),
        entry(6, s.olim, "Olim Rasulov", "-2.50"),
      ],
      total_students: 6,
    });
  });

  it("shows a student the others' short names, their own full name and their rank and points, also outside the page", async () => {
    const s = await board();
    const res = await as(s.timur, "/t/rating");
    expect(res.body.data).toEqual({
      entries: [
        entry(1, s.aziz, "Aziz K.", "30.00"),
        entry(1, s.lola, "Lola B.", "30.00"),
        entry(3, s.timur, "Timur Usmonov", "10.00"),
        entry(4, s.bek, "Bek A.", "0.00"),
        entry(4, s.nodira, "Nodira S.", "0.00"),
        entry(6, s.olim, "Olim R.", "-2.50"),
      ],
      total_students: 6,
      caller_rank: 3,
      caller_points: "10.00",
    });
    const bottom = await as(s.olim, "/t/rating?limit=2");
    expect(bottom.body.data).toEqual({
      entries: [entry(1, s.aziz, "Aziz K.", "30.00"), entry(1, s.lola, "Lola B.", "30.00")],
      total_students: 6,
      caller_rank: 6,
      caller_points: "-2.50",
    });
    const zero = await as(s.bek, "/t/rating?limit=1");
    expect([zero.body.data.caller_rank, zero.body.data.caller_points, zero.body.data.entries.length]).toEqual([4, "0.00", 1]);
  });

  it("shows a restricted curator only their students, with full names and no caller fields; an unrestricted curator everyone", async () => {
    const s = await board();
    const res = await as(s.curator, "/t/rating");
    expect(res.body.data).toEqual({
      entries: [entry(1, s.lola, "Lola Bakirova", "30.00"), entry(2, s.timur, "Timur Usmonov", "10.00"), entry(3, s.olim, "Olim Rasulov", "-2.50")],
      total_students: 3,
    });
    const manager = await signedIn(s.school, { role: "curator", permissions: { can_manage_groups: true } });
    const full = await as(manager, "/t/rating?limit=3");
    expect(full.body.data).toEqual({
      entries: [entry(1, s.aziz, "Aziz Karimov", "30.00"), entry(1, s.lola, "Lola Bakirova", "30.00"), entry(3, s.timur, "Timur Usmonov", "10.00")],
      total_students: 6,
    });
  });

  it("ranks within a group the caller sees; other groups are 404 group_not_found", async () => {
    const s = await board();
    const group = await createGroup(s.school.id, { name: "Morning" });
    for (const member of [s.aziz, s.lola, s.bek, s.olim]) await addMember(group, member.id);
    const admin = await as(s.admin, `/t/rating?group_id=${group.id.toUpperCase()}`);
    expect(admin.body.data).toEqual({
      entries: [entry(1, s.aziz, "Aziz Karimov", "30.00"), entry(1, s.lola, "Lola Bakirova", "30.00"), entry(3, s.bek, "Bek Aliev", "0.00"), entry(4, s.olim, "Olim Rasulov", "-2.50")],
      total_students: 4,
    });
    const member = await as(s.olim, `/t/rating?group_id=${group.id}`);
    expect([member.body.data.caller_rank, member.body.data.total_students]).toEqual([4, 4]);
    // The restricted curator sees the group they curate, cut to their students.
    const curated = await as(s.curator, `/t/rating?group_id=${s.curated.id}`);
    expect(curated.body.data).toEqual({ entries: [entry(1, s.lola, "Lola Bakirova", "30.00")], total_students: 1 });
    const deleted = await createGroup(s.school.id, { deleted: true });
    const foreign = await createGroup(s.foreign.school.id);
    const notFound = { status: 404, error: "group_not_found" };
    for (const id of [unknownId(), deleted.id, foreign.id]) expect(failure(await as(s.admin, `/t/rating?group_id=${id}`))).toEqual(notFound);
    expect(failure(await as(s.timur, `/t/rating?group_id=${group.id}`))).toEqual(notFound);
    expect(failure(await as(s.curator, `/t/rating?group_id=${group.id}`))).toEqual(notFound);
  });

  it("takes limit 1..100 (default 10)", async () => {
    const { school, admin } = await ratingSchool();
    for (let index = 0; index < 12; index++) await award(await named(school, "Student", `N${String(index).padStart(2, "0")}`), 100 * (index + 1));
    const page = await as(admin, "/t/rating");
    expect(page.body.data.entries.map((row: { points: string }) => row.points)).toEqual(["12.00", "11.00", "10.00", "9.00", "8.00", "7.00", "6.00", "5.00", "4.00", "3.00"]);
    expect(page.body.data.total_students).toBe(12);
    expect((await as(admin, "/t/rating?limit=100")).body.data.entries).toHaveLength(12);
    expect((await as(admin, "/t/rating?limit=1")).body.data.entries).toEqual([expect.objectContaining({ rank: 1, points: "12.00" })]);
    for (const limit of ["0", "101", "x", "1.5"]) expect(failure(await as(admin, `/t/rating?limit=${limit}`))).toEqual({ status: 400, error: "invalid_params" });
  });

  it("answers every validation identifier of the contract", async () => {
    const { admin } = await ratingSchool();
    expect(failure(await as(admin, "/t/rating?group_id=nope"))).toEqual({ status: 400, error: "invalid group_id" });
    expect(failure(await as(admin, "/t/rating?module_id=nope"))).toEqual({ status: 400, error: "invalid module_id" });
    expect(failure(await as(admin, "/t/rating?source_id=12345678-1234-1234-1234-12345678901"))).toEqual({ status: 400, error: "invalid source_id" });
    expect(failure(await as(admin, "/t/rating?source_types=quiz,badge"))).toEqual({ status: 400, error: "invalid_params" });
    expect(failure(await as(admin, "/t/rating?from=yesterday"))).toEqual({ status: 400, error: "invalid_params" });
    expect(failure(await as(admin, "/t/rating?from=2030-01-01T00:00:00Z&to=2030-01-01T00:00:00Z"))).toEqual({ status: 400, error: "invalid_params" });
  });

  it("is 403 PAYMENT_REQUIRED while the school's billing gate is closed", async () => {
    for (const options of [{ planState: "suspended" as const, suspendedManually: true }, { planState: "trial" as const, expiresAt: Date.now() - DAY_MS }]) {
      const school = await createSchool(options);
      const student = await signedIn(school, { role: "student" });
      expect(failure(await as(student, "/t/rating"))).toEqual({ status: 403, error: "PAYMENT_REQUIRED" });
    }
  });
});
