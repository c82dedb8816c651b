import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../src/core/lib/clock";
import { createSchool } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, signedIn, unknownId } from "../../helpers/users";
import { award, named, ratedContent, ratingSchool } from "./leaderboard-fixtures";
import { fixtureD1 } from "../../helpers/databases";

/** GET /t/rating/filter-options: live objects that already have point events of students the caller sees. */

async function options() {
  const { school, admin } = await ratingSchool();
  const c = await ratedContent(school.id);
  const xena = await named(school, "Xena", "Alpha");
  const yan = await named(school, "Yan", "Beta");
  const inactive = await named(school, "Ina", "Active", { isActive: false });
  for (const [targetId, sourceType] of [
    [c.lessonA, "lesson"],
    [c.lessonGone, "lesson"],
    [c.quizOne, "quiz"],
    [c.quizTwo, "quiz"],
    [c.quizThree, "quiz"],
    [c.essay, "assignment"],
    [c.exam, "exam"],
  ] as const) {
    await award(xena, 100, { sourceType, targetId });
  }
  await award(yan, 100, { sourceType: "quiz", targetId: c.quizOne });
  // Events of an inactive student do not make an option.
  await award(inactive, 100, { sourceType: "quiz", targetId: c.quizFour });
  return { school, admin, c, xena, yan };
}

const option = (id: string, title: string) => ({ id, title });

describe("GET /t/rating/filter-options", () => {
  it("lists the live objects with events of the caller's population, by title; a module limits lessons, quizzes and assignments, not exams", async () => {
    const { admin, c, yan } = await options();
    const all = await as(admin, "/t/rating/filter-options");
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual({
      lessons: [option(c.lessonA, "Lesson A")],
      quizzes: [option(c.quizOne, "Quiz One"), option(c.quizThree, "Quiz Three"), option(c.quizTwo, "Quiz Two")],
      assignments: [option(c.essay, "Essay")],
      exams: [option(c.exam, "Final exam")],
    });
    const module1 = await as(yan, `/t/rating/filter-options?module_id=${c.module1}`);
    expect(module1.body.data).toEqual({
      lessons: [option(c.lessonA, "Lesson A")],
      quizzes: [option(c.quizOne, "Quiz One")],
      assignments: [option(c.essay, "Essay")],
      exams: [option(c.exam, "Final exam")],
    });
    const module2 = await as(admin, `/t/rating/filter-options?module_id=${c.module2}`);
    expect(module2.body.data).toEqual({ lessons: [], quizzes: [option(c.quizThree, "Quiz Three")], assignments: [], exams: [option(c.exam, "Final exam")] });
  });

  it("follows the group and a restricted curator's students", async () => {
    const { school, admin, c, xena, yan } = await options();
    const group = await createGroup(school.id);
    await addMember(group, yan.id);
    const grouped = await as(yan, `/t/rating/filter-options?group_id=${group.id}`);
    expect(grouped.body.data).toEqual({ lessons: [], quizzes: [option(c.quizOne, "Quiz One")], assignments: [], exams: [] });
    const curator = await signedIn(school, { role: "curator" });
    await addGroupCurator(group, curator.id);
    expect((await as(curator, "/t/rating/filter-options")).body.data.quizzes).toEqual([option(c.quizOne, "Quiz One")]);
    await assignIndividualCurator(xena.id, curator.id);
    expect((await as(curator, "/t/rating/filter-options")).body.data.exams).toEqual([option(c.exam, "Final exam")]);
    // A deleted object is no longer an option, whatever its events.
    await fixtureD1.prepare("UPDATE exams SET deleted_at = 1 WHERE id = ?").bind(c.exam).run();
    expect((await as(admin, "/t/rating/filter-options")).body.data.exams).toEqual([]);
  });

  it("answers the contract's identifiers", async () => {
    const { school, admin, c, xena } = await options();
    expect(failure(await as(admin, "/t/rating/filter-options?group_id=x"))).toEqual({ status: 400, error: "invalid group_id" });
    expect(failure(await as(admin, "/t/rating/filter-options?module_id=x"))).toEqual({ status: 400, error: "invalid module_id" });
    const other = await createGroup(school.id);
    const deleted = await createGroup(school.id, { deleted: true });
    for (const [member, id] of [[admin, unknownId()], [admin, deleted.id], [xena, other.id]] as const) {
      expect(failure(await as(member, `/t/rating/filter-options?group_id=${id}`))).toEqual({ status: 404, error: "group_not_found" });
    }
    const foreign = await ratedContent((await ratingSchool()).school.id);
    await fixtureD1.prepare("UPDATE course_modules SET deleted_at = 1 WHERE id = ?").bind(c.module2).run();
    for (const id of [unknownId(), foreign.module1, c.module2]) {
      expect(failure(await as(admin, `/t/rating/filter-options?module_id=${id}`))).toEqual({ status: 404, error: "module_not_found" });
    }
    const closed = await createSchool({ planState: "trial", expiresAt: Date.now() - DAY_MS });
    const student = await signedIn(closed, { role: "student" });
    expect(failure(await as(student, "/t/rating/filter-options"))).toEqual({ status: 403, error: "PAYMENT_REQUIRED" });
  });
});
