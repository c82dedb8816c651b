import { describe, expect, it } from "vitest";
import { createSchool } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, as, assignIndividualCurator, createGroup, signedIn, unknownId, type Member } from "../../helpers/users";
import { award, named, ratingSchool } from "./leaderboard-fixtures";
import { fixtureD1 } from "../../helpers/databases";

/** GET /t/admin/rating/students/:id/summary: school and group ranks by school totals among active students, and who may read them. */

async function standings() {
  const { school, admin } = await ratingSchool();
  const lola = await named(school, "Lola", "Bakirova");
  const aziz = await named(school, "Aziz", "Karimov");
  const timur = await named(school, "Timur", "Usmonov");
  const bek = await named(school, "Bek", "Aliev");
  const olim = await named(school, "Olim", "Rasulov");
  const zarina = await named(school, "Zarina", "Inactive", { isActive: false });
  await award(lola, 3000);
  await award(aziz, 3000);
  await award(timur, 1000);
  await award(olim, -250);
  await award(zarina, 10_000);
  const alpha = await createGroup(school.id, { name: "Alpha group" });
  const beta = await createGroup(school.id, { name: "beta group" });
  const gone = await createGroup(school.id, { name: "Gone", deleted: true });
  for (const member of [lola, timur, bek, zarina]) await addMember(alpha, member.id);
  for (const member of [timur, olim, aziz]) await addMember(beta, member.id);
  await addMember(gone, timur.id);
  return { school, admin, lola, aziz, timur, bek, olim, zarina, alpha, beta };
}

const summary = (member: Member, id: string) => as(member, `/t/admin/rating/students/${id}/summary`);

describe("GET /t/admin/rating/students/:id/summary", () => {
  it("ranks the student in the school and in each live group (by name), zero and negative totals included", async () => {
    const s = await standings();
    const timur = await summary(s.admin, s.timur.id);
    expect(timur.status).toBe(200);
    expect(timur.body.data).toEqual({
      school_rank: 3,
      school_total: "10.00",
      school_total_students: 5,
      group_ranks: [
        { group_id: s.alpha.id, group_name: "Alpha group", rank: 2, total_points: "10.00", total_students: 3 },
        { group_id: s.beta.id, group_name: "beta group", rank: 2, total_points: "10.00", total_students: 3 },
      ],
    });
    expect((await summary(s.olim, s.olim.id)).body.data).toEqual({
      school_rank: 5,
      school_total: "-2.50",
      school_total_students: 5,
      group_ranks: [{ group_id: s.beta.id, group_name: "beta group", rank: 3, total_points: "-2.50", total_students: 3 }],
    });
    expect((await summary(s.admin, s.bek.id)).body.data).toEqual({
      school_rank: 4,
      school_total: "0.00",
      school_total_students: 5,
      group_ranks: [{ group_id: s.alpha.id, group_name: "Alpha group", rank: 3, total_points: "0.00", total_students: 3 }],
    });
    expect((await summary(s.admin, s.lola.id)).body.data.school_rank).toBe(1);
    expect((await summary(s.admin, s.aziz.id)).body.data.school_rank).toBe(1);
  });

  it("gives an inactive student's totals without ranks", async () => {
    const s = await standings();
    expect((await summary(s.admin, s.zarina.id)).body.data).toEqual({
      school_rank: null,
      school_total: "100.00",
      school_total_students: 5,
      group_ranks: [{ group_id: s.alpha.id, group_name: "Alpha group", rank: null, total_points: "100.00", total_students: 3 }],
    });
  });

  it("answers admins, unrestricted curators, the curator in charge and the student; everyone else the same 404 as a missing or foreign id", async () => {
    const s = await standings();
    const restricted = await signedIn(s.school, { role: "curator" });
    await assignIndividualCurator(s.timur.id, restricted.id);
    const manager = await signedIn(s.school, { role: "curator", permissions: { can_manage_groups: true } });
    for (const member of [s.admin, manager, restricted, s.timur]) expect((await summary(member, s.timur.id)).status).toBe(200);
    const foreign = await ratingSchool();
    const stranger = await named(foreign.school, "Far", "Away");
    const deleted = await named(s.school, "Gone", "Student");
    await fixtureD1.prepare("UPDATE users SET deleted_at = 1 WHERE id = ?").bind(deleted.id).run();
    const notFound = { status: 404, error: "student_not_found" };
    for (const [member, id] of [
      [s.admin, unknownId()],
      [s.admin, stranger.id],
      [s.admin, deleted.id],
      [s.admin, restricted.id],
      [restricted, s.lola.id],
      [s.timur, s.lola.id],
      [s.lola, s.timur.id],
    ] as const) {
      expect(failure(await summary(member, id))).toEqual(notFound);
    }
    expect(failure(await summary(s.admin, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id" });
    const closed = await createSchool({ planState: "suspended", suspendedManually: true });
    const admin = await signedIn(closed, { role: "admin" });
    expect(failure(await summary(admin, admin.id))).toEqual({ status: 403, error: "PAYMENT_REQUIRED" });
  });
});
