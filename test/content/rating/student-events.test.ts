import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../src/core/lib/clock";
import { uuidv7 } from "../../../src/core/lib/ids";
import { createSchool } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, assignIndividualCurator, signedIn, unknownId, type Member } from "../../helpers/users";
import { award, day, named, ratedContent, ratingSchool } from "./leaderboard-fixtures";

/** GET /t/admin/rating/students/:id/events: a student's point events, newest first, filtered and paged. */

async function history() {
  const { school, admin } = await ratingSchool();
  const content = await ratedContent(school.id);
  const sara = await named(school, "Sara", "Ali");
  const other = await named(school, "Omar", "Other");
  const ruleId = uuidv7();
  const ids = {
    quiz: await award(sara, 800, { sourceType: "quiz", targetId: content.quizOne, ruleId, awardedAt: day(1) }),
    lesson: await award(sara, 100, { sourceType: "lesson", targetId: content.lessonGone, awardedAt: day(2) }),
    bonus: await award(sara, 500, { reason: "Olympiad bonus", actorUserId: admin.id, awardedAt: day(3) }),
    penalty: await award(sara, -200, { reason: "Late penalty_x", actorUserId: admin.id, awardedAt: day(4) }),
    exam: await award(sara, 2000, { sourceType: "exam", targetId: content.exam, awardedAt: day(5) }),
    half: await award(sara, 100, { reason: "50% off", actorUserId: uuidv7(), awardedAt: day(5) }),
  };
  await award(other, 999, { awardedAt: day(1) });
  return { school, admin, content, sara, other, ruleId, ids };
}

const events = (member: Member, id: string, query = "") => as(member, `/t/admin/rating/students/${id}/events${query}`);
const idsOf = (res: { body: any }) => res.body.data.events.map((event: { id: string }) => event.id);
const iso = (ms: number) => new Date(ms).toISOString();

describe("GET /t/admin/rating/students/:id/events", () => {
  it("lists the events newest first (then by id) with labels, signed points and the actor", async () => {
    const h = await history();
    const res = await events(h.admin, h.sara.id);
    expect(res.status).toBe(200);
    const { ids } = h;
    expect(res.body.data).toEqual({
      events: [
        { id: ids.half, awarded_at: iso(day(5)), source_type: "manual", target_id: null, target_label: null, points: "1.00", rule_id: null, reason: "50% off", actor_user_id: expect.any(String), actor_display_name: null },
        { id: ids.exam, awarded_at: iso(day(5)), source_type: "exam", target_id: h.content.exam, target_label: "Final exam", points: "20.00", rule_id: null, reason: null, actor_user_id: null, actor_display_name: null },
        { id: ids.penalty, awarded_at: iso(day(4)), source_type: "manual", target_id: null, target_label: null, points: "-2.00", rule_id: null, reason: "Late penalty_x", actor_user_id: h.admin.id, actor_display_name: "Test User" },
        { id: ids.bonus, awarded_at: iso(day(3)), source_type: "manual", target_id: null, target_label: null, points: "5.00", rule_id: null, reason: "Olympiad bonus", actor_user_id: h.admin.id, actor_display_name: "Test User" },
        { id: ids.lesson, awarded_at: iso(day(2)), source_type: "lesson", target_id: h.content.lessonGone, target_label: "Lesson Gone", points: "1.00", rule_id: null, reason: null, actor_user_id: null, actor_display_name: null },
        { id: ids.quiz, awarded_at: iso(day(1)), source_type: "quiz", target_id: h.content.quizOne, target_label: "Quiz One", points: "8.00", rule_id: h.ruleId, reason: null, actor_user_id: null, actor_display_name: null },
      ],
      total: 6,
      limit: 50,
      offset: 0,
    });
  });

  it("filters by source type, time window, sign and reason (wildcards literal), with exact totals and paging", async () => {
    const h = await history();
    const { ids } = h;
    const check = async (query: string, expected: string[], total = expected.length) => {
      const res = await events(h.sara, h.sara.id, query);
      expect({ query, ids: idsOf(res), total: res.body.data.total }).toEqual({ query, ids: expected, total });
    };
    await check("?source_type=manual", [ids.half, ids.penalty, ids.bonus]);
    await check("?source_type=quiz,exam", [ids.exam, ids.quiz]);
    await check("?sign=negative", [ids.penalty]);
    await check("?sign=positive", [ids.half, ids.exam, ids.bonus, ids.lesson, ids.quiz]);
    await check("?sign=all", [ids.half, ids.exam, ids.penalty, ids.bonus, ids.lesson, ids.quiz]);
    await check(`?from=${iso(day(3))}&to=${iso(day(5))}`, [ids.penalty, ids.bonus]);
    await check(`?from=${iso(day(5))}`, [ids.half, ids.exam]);
    await check(`?to=${iso(day(2))}`, [ids.quiz]);
    await check("?reason_search=OLYMPIAD", [ids.bonus]);
    await check("?reason_search=%25", [ids.half]);
    await check("?reason_search=_", [ids.penalty]);
    await check("?source_type=manual&sign=positive&reason_search=o", [ids.half, ids.bonus]);
    const page = await events(h.admin, h.sara.id, "?limit=2&offset=1");
    expect({ ids: idsOf(page), total: page.body.data.total, limit: page.body.data.limit, offset: page.body.data.offset }).toEqual({ ids: [ids.exam, ids.penalty], total: 6, limit: 2, offset: 1 });
    const past = await events(h.admin, h.sara.id, "?offset=10&limit=100");
    expect([idsOf(past), past.body.data.total]).toEqual([[], 6]);
  });

  it("answers the contract's identifiers, the same 404 for missing, foreign and out-of-scope students", async () => {
    const h = await history();
    expect(failure(await events(h.admin, h.sara.id, "?from=yesterday"))).toEqual({ status: 400, error: "invalid_time" });
    expect(failure(await events(h.admin, h.sara.id, `?to=2030-01-01`))).toEqual({ status: 400, error: "invalid_time" });
    expect(failure(await events(h.admin, h.sara.id, `?from=${iso(day(3))}&to=${iso(day(2))}`))).toEqual({ status: 400, error: "invalid_time" });
    expect(failure(await events(h.admin, h.sara.id, "?sign=both"))).toEqual({ status: 400, error: "invalid_sign" });
    expect(failure(await events(h.admin, h.sara.id, "?source_type=badge"))).toEqual({ status: 400, error: "invalid_params" });
    expect(failure(await events(h.admin, h.sara.id, "?limit=101"))).toEqual({ status: 400, error: "invalid_params" });
    expect(failure(await events(h.admin, h.sara.id, "?offset=-1"))).toEqual({ status: 400, error: "invalid_params" });
    expect(failure(await events(h.admin, "123"))).toEqual({ status: 400, error: "invalid_id" });
    const restricted = await signedIn(h.school, { role: "curator" });
    const colleague = await signedIn(h.school, { role: "curator" });
    await assignIndividualCurator(h.other.id, colleague.id);
    await assignIndividualCurator(h.sara.id, restricted.id);
    expect(idsOf(await events(restricted, h.sara.id, "?limit=1"))).toEqual([h.ids.half]);
    const foreign = await ratingSchool();
    const stranger = await named(foreign.school, "Far", "Away");
    const notFound = { status: 404, error: "student_not_found" };
    for (const [member, id] of [
      [h.admin, unknownId()],
      [h.admin, stranger.id],
      [restricted, h.other.id],
      [h.other, h.sara.id],
      [h.sara, h.other.id],
    ] as const) {
      expect(failure(await events(member, id))).toEqual(notFound);
    }
    const closed = await createSchool({ planState: "trial", expiresAt: Date.now() - DAY_MS });
    const student = await signedIn(closed, { role: "student" });
    expect(failure(await events(student, student.id))).toEqual({ status: 403, error: "PAYMENT_REQUIRED" });
  });
});
