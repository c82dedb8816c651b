import { describe, expect, it } from "vitest";
import { failure } from "../../helpers/http";
import { addMember, as, assignIndividualCurator, createGroup, signedIn, unknownId } from "../../helpers/users";
import { award, day, named, ratedContent, ratingSchool } from "./leaderboard-fixtures";
import { fixtureD1 } from "../../helpers/databases";

/**
 * GET /t/rating with event filters: the board sums the matching point events per student (module,
 * object, source types, time window [from, to)), every active student of the population still
 * ranked, zero included.
 */

async function filtered() {
  const { school, admin } = await ratingSchool();
  const content = await ratedContent(school.id);
  const xena = await named(school, "Xena", "Alpha");
  const yan = await named(school, "Yan", "Beta");
  const zed = await named(school, "Zed", "Gamma");
  await award(xena, 500, { sourceType: "module", targetId: content.module1, awardedAt: day(1) });
  await award(xena, 100, { sourceType: "lesson", targetId: content.lessonA, awardedAt: day(2) });
  await award(xena, 100, { sourceType: "lesson", targetId: content.lessonGone, awardedAt: day(3) });
  await award(xena, 800, { sourceType: "quiz", targetId: content.quizOne, awardedAt: day(10) });
  await award(xena, 750, { sourceType: "assignment", targetId: content.essay, awardedAt: day(11) });
  await award(xena, 300, { sourceType: "quiz", targetId: content.quizTwo, awardedAt: day(12) });
  await award(xena, 400, { sourceType: "quiz", targetId: content.quizThree, awardedAt: day(13) });
  await award(xena, 2000, { sourceType: "exam", targetId: content.exam, awardedAt: day(14) });
  await award(xena, -200, { sourceType: "manual", awardedAt: day(15) });
  await award(yan, 900, { sourceType: "quiz", targetId: content.quizOne, awardedAt: day(20) });
  await award(yan, 1000, { sourceType: "exam", targetId: content.exam, awardedAt: day(5) });
  return { school, admin, content, xena, yan, zed };
}

const row = (rank: number, member: { id: string }, display_name: string, points: string) => ({ rank, student_id: member.id, display_name, points });
const iso = (ms: number) => new Date(ms).toISOString();

describe("GET /t/rating with event filters", () => {
  it("sums a module's events: the module, its live lessons and the quizzes and assignments their blocks reference, never exams", async () => {
    const s = await filtered();
    const res = await as(s.admin, `/t/rating?module_id=${s.content.module1}`);
    expect(res.body.data).toEqual({
      entries: [row(1, s.xena, "Xena Alpha", "21.50"), row(2, s.yan, "Yan Beta", "9.00"), row(3, s.zed, "Zed Gamma", "0.00")],
      total_students: 3,
    });
    const other = await as(s.yan, `/t/rating?module_id=${s.content.module2}`);
    expect(other.body.data).toEqual({
      entries: [row(1, s.xena, "Xena A.", "4.00"), row(2, s.yan, "Yan Beta", "0.00"), row(2, s.zed, "Zed G.", "0.00")],
      total_students: 3,
      caller_rank: 2,
      caller_points: "0.00",
    });
  });

  it("sums one object's events (source_id) and the chosen source types", async () => {
    const s = await filtered();
    const quiz = await as(s.yan, `/t/rating?source_id=${s.content.quizOne}`);
    expect(quiz.body.data).toEqual({
      entries: [row(1, s.yan, "Yan Beta", "9.00"), row(2, s.xena, "Xena A.", "8.00"), row(3, s.zed, "Zed G.", "0.00")],
      total_students: 3,
      caller_rank: 1,
      caller_points: "9.00",
    });
    const exams = await as(s.admin, "/t/rating?source_types=exam");
    expect(exams.body.data.entries).toEqual([row(1, s.xena, "Xena Alpha", "20.00"), row(2, s.yan, "Yan Beta", "10.00"), row(3, s.zed, "Zed Gamma", "0.00")]);
    const several = await as(s.admin, "/t/rating?source_types=quiz,exam&source_types=quiz");
    expect(several.body.data.entries.map((entry: { points: string }) => entry.points)).toEqual(["35.00", "19.00", "0.00"]);
    const manual = await as(s.admin, "/t/rating?source_types=manual");
    expect(manual.body.data.entries).toEqual([row(1, s.yan, "Yan Beta", "0.00"), row(1, s.zed, "Zed Gamma", "0.00"), row(3, s.xena, "Xena Alpha", "-2.00")]);
  });

  it("sums a time window, from inclusive and to exclusive, and echoes it as time_window", async () => {
    const s = await filtered();
    const window = await as(s.admin, `/t/rating?from=${iso(day(10))}&to=${encodeURIComponent(iso(day(14)).replace("Z", "+00:00"))}`);
    expect(window.body.data).toEqual({
      entries: [row(1, s.xena, "Xena Alpha", "22.50"), row(2, s.yan, "Yan Beta", "0.00"), row(2, s.zed, "Zed Gamma", "0.00")],
      total_students: 3,
      time_window: { from: iso(day(10)), to: iso(day(14)) },
    });
    const open = await as(s.admin, `/t/rating?from=${encodeURIComponent("2030-01-15T05:00:00+05:00")}`);
    expect(open.body.data).toEqual({
      entries: [row(1, s.xena, "Xena Alpha", "18.00"), row(2, s.yan, "Yan Beta", "9.00"), row(3, s.zed, "Zed Gamma", "0.00")],
      total_students: 3,
      time_window: { from: iso(day(14)), to: null },
    });
    const until = await as(s.admin, `/t/rating?to=${iso(day(5))}`);
    expect(until.body.data.entries.map((entry: { points: string }) => entry.points)).toEqual(["7.00", "0.00", "0.00"]);
    expect(until.body.data.time_window).toEqual({ from: null, to: iso(day(5)) });
    const combined = await as(s.admin, `/t/rating?module_id=${s.content.module1}&from=${iso(day(10))}&source_types=quiz,assignment`);
    expect(combined.body.data.entries).toEqual([row(1, s.xena, "Xena Alpha", "15.50"), row(2, s.yan, "Yan Beta", "9.00"), row(3, s.zed, "Zed Gamma", "0.00")]);
  });

  it("filters within the caller's population: a group, a restricted curator's students", async () => {
    const s = await filtered();
    const group = await createGroup(s.school.id);
    await addMember(group, s.yan.id);
    await addMember(group, s.zed.id);
    const grouped = await as(s.admin, `/t/rating?group_id=${group.id}&source_id=${s.content.quizOne}`);
    expect(grouped.body.data).toEqual({ entries: [row(1, s.yan, "Yan Beta", "9.00"), row(2, s.zed, "Zed Gamma", "0.00")], total_students: 2 });
    const curator = await signedIn(s.school, { role: "curator" });
    await assignIndividualCurator(s.xena.id, curator.id);
    const own = await as(curator, `/t/rating?source_types=exam`);
    expect(own.body.data).toEqual({ entries: [row(1, s.xena, "Xena Alpha", "20.00")], total_students: 1 });
  });

  it("answers 404 module_not_found for a missing, foreign or deleted module", async () => {
    const s = await filtered();
    const foreign = await ratingSchool();
    const elsewhere = await ratedContent(foreign.school.id);
    await fixtureD1.prepare("UPDATE course_modules SET deleted_at = 1 WHERE id = ?").bind(s.content.module2).run();
    for (const id of [unknownId(), elsewhere.module1, s.content.module2]) {
      expect(failure(await as(s.admin, `/t/rating?module_id=${id}`))).toEqual({ status: 404, error: "module_not_found" });
    }
  });
});
