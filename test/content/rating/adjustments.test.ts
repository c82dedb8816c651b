import { describe, expect, it } from "vitest";
import { createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { adjust, pointEventRows, putDefault, totalOf } from "../../helpers/rating";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { fixtureD1 } from "../../helpers/databases";

/**
 * POST /admin/rating/adjustments: signed manual point events with an audited reason, the
 * students it may name, the manual rule's switch and the idempotency key (the race and the
 * pushes are in adjustments-events.test.ts).
 */

const UUID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const student = await createUser(school.id, { role: "student" });
  return { school, admin, student };
}

describe("POST /admin/rating/adjustments", () => {
  it("writes a bonus and a deduction as manual point events with the reason and the admin; the total follows", async () => {
    const { school, admin, student } = await setup();
    const bonus = await adjust(admin, { student_id: student.id, points: "15.5", reason: "  Olympiad winner  " });
    expect(bonus.status).toBe(201);
    expect(bonus.body).toEqual({ success: true, data: { event_id: UUID } });
    expect(await totalOf(school.id, student.id)).toBe(1550);

    const deduction = await adjust(admin, { student_id: student.id, points: "-20.25", reason: "Plagiarism\nin essay 2" });
    expect(deduction.status).toBe(201);
    expect(await totalOf(school.id, student.id)).toBe(-475);

    const rows = await pointEventRows(school.id);
    expect(rows).toEqual([
      {
        id: bonus.body.data.event_id,
        student_id: student.id,
        source_type: "manual",
        target_id: null,
        source_key: `manual:${bonus.body.data.event_id}`,
        points_hundredths: 1550,
        rule_id: null,
        reason: "Olympiad winner",
        actor_user_id: admin.id,
        awarded_at: expect.any(Number),
      },
      {
        id: deduction.body.data.event_id,
        student_id: student.id,
        source_type: "manual",
        target_id: null,
        source_key: `manual:${deduction.body.data.event_id}`,
        points_hundredths: -2025,
        rule_id: null,
        reason: "Plagiarism\nin essay 2",
        actor_user_id: admin.id,
        awarded_at: expect.any(Number),
      },
    ]);
  });

  it("the reason and the admin are shown in the student's point history", async () => {
    const { admin, student } = await setup();
    await fixtureD1.prepare("UPDATE users SET first_name = 'Ada', last_name = 'Admin' WHERE id = ?").bind(admin.id).run();
    const res = await adjust(admin, { student_id: student.id, points: "-3", reason: "Missed the deadline" });
    const events = await as(admin, `/t/admin/rating/students/${student.id}/events`);
    expect(events.status).toBe(200);
    expect(events.body.data.events).toEqual([
      expect.objectContaining({
        id: res.body.data.event_id,
        source_type: "manual",
        target_id: null,
        points: "-3.00",
        rule_id: null,
        reason: "Missed the deadline",
        actor_user_id: admin.id,
        actor_display_name: "Ada Admin",
      }),
    ]);
  });

  it("names the school's manual default row as the rule once it exists", async () => {
    const { school, admin, student } = await setup();
    await putDefault(admin, "manual", { enabled: true });
    const rule = await fixtureD1.prepare("SELECT id FROM rating_rules WHERE tenant_id = ? AND source_type = 'manual'").bind(school.id).first<{ id: string }>();
    const res = await adjust(admin, { student_id: student.id, points: 1, reason: "Helping others" });
    expect(res.status).toBe(201);
    expect((await pointEventRows(school.id))[0]).toMatchObject({ id: res.body.data.event_id, rule_id: rule!.id, points_hundredths: 100 });
  });

  it("takes the bounds: ±100000.00, a reason of 2000 characters, a key of 255", async () => {
    const { school, admin, student } = await setup();
    expect((await adjust(admin, { student_id: student.id, points: "100000.00", reason: "r".repeat(2000), idempotency_key: "k".repeat(255) })).status).toBe(201);
    expect((await adjust(admin, { student_id: student.id, points: "-100000", reason: "r" })).status).toBe(201);
    expect((await adjust(admin, { student_id: student.id, points: "0.01", reason: "r" })).status).toBe(201);
    expect(await totalOf(school.id, student.id)).toBe(1);
  });

  it("refuses a bad body with invalid_request_body and writes nothing", async () => {
    const { school, admin, student } = await setup();
    const valid = { student_id: student.id, points: "5", reason: "Good work" };
    const bodies: unknown[] = [
      {},
      { ...valid, student_id: undefined },
      { ...valid, student_id: "student-1" },
      { ...valid, points: undefined },
      { ...valid, points: "0" },
      { ...valid, points: "-0.00" },
      { ...valid, points: "1.234" },
      { ...valid, points: "100000.01" },
      { ...valid, points: "-100000.01" },
      { ...valid, points: "five" },
      { ...valid, points: null },
      { ...valid, reason: undefined },
      { ...valid, reason: "" },
      { ...valid, reason: "   " },
      { ...valid, reason: "r".repeat(2001) },
      { ...valid, reason: 5 },
      { ...valid, idempotency_key: "" },
      { ...valid, idempotency_key: "k".repeat(256) },
      { ...valid, idempotency_key: 7 },
      { ...valid, note: "extra" },
    ];
    for (const body of bodies) {
      expect({ body, ...failure(await adjust(admin, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    expect(await pointEventRows(school.id)).toEqual([]);
  });

  it("answers student_not_found unless the id names a live student of the school; an inactive student may be adjusted", async () => {
    const { school, admin, student } = await setup();
    const other = await setup();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const deleted = await createUser(school.id, { role: "student" });
    await fixtureD1.prepare("UPDATE users SET deleted_at = ? WHERE id = ?").bind(Date.now(), deleted.id).run();
    for (const id of [unknownId(), other.student.id, curator.id, admin.id, deleted.id]) {
      expect({ id, ...failure(await adjust(admin, { student_id: id, points: "1", reason: "r" })) }).toEqual({ id, status: 404, error: "student_not_found" });
    }
    const inactive = await createUser(school.id, { role: "student", isActive: false });
    expect((await adjust(admin, { student_id: inactive.id, points: "2", reason: "r" })).status).toBe(201);
    expect((await adjust(admin, { student_id: student.id.toUpperCase(), points: "3", reason: "r" })).status).toBe(201);
    expect((await pointEventRows(school.id)).map((row) => [row.student_id, row.points_hundredths])).toEqual([
      [inactive.id, 200],
      [student.id, 300],
    ]);
    expect(await pointEventRows(other.school.id)).toEqual([]);
  });

  it("is refused with invalid_request_body while the manual rule is disabled", async () => {
    const { school, admin, student } = await setup();
    await putDefault(admin, "manual", { enabled: false });
    const res = await adjust(admin, { student_id: student.id, points: "1", reason: "r" });
    expect(failure(res)).toEqual({ status: 400, error: "invalid_request_body" });
    expect(res.body.message).toBe("Adjustments are switched off: the school's manual rating rule is disabled.");
    expect(await pointEventRows(school.id)).toEqual([]);
    await putDefault(admin, "manual", { enabled: true });
    expect((await adjust(admin, { student_id: student.id, points: "1", reason: "r" })).status).toBe(201);
  });

  it("an idempotency_key writes once: a repeat answers 200 with the first event whatever its body; keys are per school", async () => {
    const { school, admin, student } = await setup();
    const another = await createUser(school.id, { role: "student" });
    const first = await adjust(admin, { student_id: student.id, points: "10", reason: "Quiz week", idempotency_key: "week-12" });
    expect(first.status).toBe(201);
    const eventId = first.body.data.event_id;
    const again = await adjust(admin, { student_id: student.id, points: "10", reason: "Quiz week", idempotency_key: "week-12" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ success: true, data: { event_id: eventId } });
    // Another body under the same key: still the first event, nothing written.
    const other = await adjust(admin, { student_id: another.id, points: "-3", reason: "Different", idempotency_key: "week-12" });
    expect(other.status).toBe(200);
    expect(other.body.data.event_id).toBe(eventId);
    expect(await pointEventRows(school.id)).toEqual([expect.objectContaining({ id: eventId, source_key: "manual:week-12", points_hundredths: 1000, reason: "Quiz week" })]);
    expect(await totalOf(school.id, student.id)).toBe(1000);
    expect(await totalOf(school.id, another.id)).toBe(0);

    // The same key in another school is that school's own.
    const elsewhere = await setup();
    const theirs = await adjust(elsewhere.admin, { student_id: elsewhere.student.id, points: "1", reason: "r", idempotency_key: "week-12" });
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.event_id).not.toBe(eventId);

    // Without a key every call writes.
    await adjust(admin, { student_id: another.id, points: "1", reason: "r" });
    await adjust(admin, { student_id: another.id, points: "1", reason: "r" });
    expect(await totalOf(school.id, another.id)).toBe(200);
  });
});
