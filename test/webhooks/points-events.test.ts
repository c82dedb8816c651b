import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { giveQuizAccess } from "../helpers/quizzes";
import { adjust, pointEventRows, totalOf } from "../helpers/rating";
import { as, signedIn, unknownId, type Member } from "../helpers/users";
import { quizForStudent, save, started, submit } from "../content/attempts/helpers";
import { regrade } from "../content/regrade/helpers";
import { hookOf } from "./helpers";

/**
 * `rating.points_changed` (05 section 5; docs/decisions/webhooks.md, "Producers"): one event per
 * point event (scored awards, completion awards, adjustments, a regrade's signed events), with the
 * point event as the admin's events list shows it plus the student and their total; none for a
 * repeat or a refusal.
 */

async function pointsEvents(tenantId: string) {
  const rows = await db()
    .select()
    .from(schema.webhookEvents)
    .where(and(eq(schema.webhookEvents.tenantId, tenantId), eq(schema.webhookEvents.type, "rating.points_changed")));
  return rows.map((row) => JSON.parse(row.data) as Record<string, unknown>);
}

async function deliveryCount(tenantId: string) {
  return (await db().select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.tenantId, tenantId))).length;
}

/** The student's point events as `GET /t/admin/rating/students/:id/events` shows them, by id. */
async function listed(admin: Member, studentId: string) {
  const res = await as(admin, `/t/admin/rating/students/${studentId}/events?limit=100`);
  expect(res.status).toBe(200);
  return new Map((res.body.data.events as Record<string, unknown>[]).map((event) => [event.id as string, event]));
}

/** Every point event of the school has exactly one webhook event, showing it as the API does. */
async function expectOnePerPointEvent(admin: Member, tenantId: string) {
  const rows = await pointEventRows(tenantId);
  const events = await pointsEvents(tenantId);
  expect(events.map((data) => data.id).sort()).toEqual(rows.map((row) => row.id).sort());
  for (const data of events) {
    const { student_id: studentId, total_points: total, ...shown } = data;
    expect((await listed(admin, String(studentId))).get(String(data.id))).toEqual(shown);
    expect(total).toEqual(expect.stringMatching(/^-?\d+\.\d{2}$/));
  }
  return events;
}

describe("rating.points_changed", () => {
  it("a passed quiz writes one per point event (the quiz's award and the completions'); a repeated submit none", async () => {
    const { school, admin, student, quiz } = await quizForStudent();
    await hookOf(admin, { events: ["rating.points_changed"] });
    const attemptId = await started(student, quiz.id);
    const [question] = quiz.questions as unknown as { id: string; answerIds: string[] }[];
    expect((await save(student, attemptId, [{ question_id: question!.id, payload: { answer_ids: [question!.answerIds[0]] } }])).status).toBe(200);
    expect((await submit(student, attemptId)).status).toBe(200);
    await submit(student, attemptId);
    const events = await expectOnePerPointEvent(admin, school.id);
    expect(events.map((data) => data.source_type).sort()).toEqual(expect.arrayContaining(["quiz"]));
    expect(events.find((data) => data.source_type === "quiz")).toMatchObject({ student_id: student.id, target_id: quiz.id, points: expect.any(String) });
    expect(await deliveryCount(school.id)).toBe(events.length);
    // The total after the batch: the last event of the batch carries what the student holds now.
    const totals = events.map((data) => Number(String(data.total_points).replace(".", "")));
    expect(Math.max(...totals)).toBe(await totalOf(school.id, student.id));
  });

  it("an adjustment writes one with its reason and actor; a replayed key and a refused one none", async () => {
    const { school, admin, student } = await quizForStudent();
    await hookOf(admin, { events: ["rating.points_changed"] });
    const body = { student_id: student.id, points: "-2.50", reason: "Late homework", idempotency_key: "k-1" };
    const res = await adjust(admin, body);
    expect(res.status).toBe(201);
    expect((await adjust(admin, body)).status).toBe(200);
    expect(failure(await adjust(admin, { ...body, student_id: unknownId(), idempotency_key: "k-2" }))).toEqual({ status: 404, error: "student_not_found" });
    const events = await expectOnePerPointEvent(admin, school.id);
    expect(events).toEqual([
      expect.objectContaining({
        id: res.body.data.event_id,
        student_id: student.id,
        source_type: "manual",
        points: "-2.50",
        reason: "Late homework",
        actor_user_id: admin.id,
        total_points: "-2.50",
      }),
    ]);
  });

  it("a regrade writes one per signed event it wrote (and the completion awards of a newly passed attempt); a regrade changing nothing none", async () => {
    const { school, admin, quiz } = await quizForStudent({ title: "Algebra", passingScore: 60, questions: [{ type: "single" }, { type: "single" }] });
    const ben = await signedIn(school, { role: "student" });
    await giveQuizAccess(school.id, quiz.id, [ben.id]);
    const [q1, q2] = quiz.questions as unknown as { id: string; answerIds: string[] }[];
    const attemptId = await started(ben, quiz.id);
    expect(
      (
        await save(ben, attemptId, [
          { question_id: q1!.id, payload: { answer_ids: [q1!.answerIds[1]] } },
          { question_id: q2!.id, payload: { answer_ids: [q2!.answerIds[0]] } },
        ])
      ).status,
    ).toBe(200);
    expect((await submit(ben, attemptId)).status).toBe(200);
    await hookOf(admin, { events: ["rating.points_changed"] });
    const before = new Set((await pointEventRows(school.id)).map((row) => row.id));
    expect((await regrade(admin, q1!.id, { mode: "accept_all", dry_run: false })).status).toBe(200);
    const written = (await pointEventRows(school.id)).filter((row) => !before.has(row.id));
    expect(written.some((row) => row.source_key.startsWith(`regrade:${q1!.id}:`))).toBe(true);
    const events = await pointsEvents(school.id);
    expect(events.map((data) => data.id).sort()).toEqual(written.map((row) => row.id).sort());
    const signed = events.find((data) => data.id === written.find((row) => row.source_key.startsWith("regrade:"))!.id);
    expect(signed).toMatchObject({ student_id: ben.id, source_type: "quiz", target_id: quiz.id, points: "5.00" });
    for (const data of events) {
      const { student_id: _student, total_points: _total, ...shown } = data;
      expect((await listed(admin, ben.id)).get(String(data.id))).toEqual(shown);
    }
    expect((await regrade(admin, q1!.id, { mode: "accept_all", dry_run: false })).status).toBe(200);
    expect(await pointsEvents(school.id)).toHaveLength(events.length);
  });

  it("the 1,000th regrade of a question writes its signed event and its webhook event (the key's number has four digits)", async () => {
    const { school, admin, quiz } = await quizForStudent({ title: "Algebra", passingScore: 60, questions: [{ type: "single" }, { type: "single" }] });
    const ben = await signedIn(school, { role: "student" });
    await giveQuizAccess(school.id, quiz.id, [ben.id]);
    const [q1, q2] = quiz.questions as unknown as { id: string; answerIds: string[] }[];
    const attemptId = await started(ben, quiz.id);
    const answers = [
      { question_id: q1!.id, payload: { answer_ids: [q1!.answerIds[1]] } },
      { question_id: q2!.id, payload: { answer_ids: [q2!.answerIds[0]] } },
    ];
    expect((await save(ben, attemptId, answers)).status).toBe(200);
    expect((await submit(ben, attemptId)).status).toBe(200);
    // 999 earlier regrades of the question changed nothing; the next one is number 1,000.
    const now = Date.now();
    await db().insert(schema.quizRegrades).values({
      id: crypto.randomUUID(), tenantId: school.id, quizId: quiz.id, questionId: q1!.id, seq: 999, mode: "accept_all",
      pointsHundredths: 100, status: "done", createdAt: now, finishedAt: now,
    });
    await hookOf(admin, { events: ["rating.points_changed"] });
    expect((await regrade(admin, q1!.id, { mode: "accept_all", dry_run: false })).status).toBe(200);
    const signed = (await pointEventRows(school.id)).filter((row) => row.source_key === `regrade:${q1!.id}:${attemptId}:1000`);
    expect(signed).toHaveLength(1);
    expect((await pointsEvents(school.id)).filter((data) => data.id === signed[0]!.id)).toHaveLength(1);
  });
});
