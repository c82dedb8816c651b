import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../../src/core/lib/ids";
import { createUser } from "../../helpers/factories";
import { schoolWithAdmin, signedIn } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { insertAssignment } from "../assignments/helpers";
import { assignmentCourse, draftOf, review, submit } from "../submissions/helpers";
import { completionRulesOff, totalOf } from "./awards-helpers";
import { fixtureD1 } from "../../helpers/databases";

/**
 * #63 `rating.top_entered` after a rule's award that takes the student's school rank from above 10
 * to 10 or better (competition ranking over the active students); once per student and local day.
 * Acceptances are the curator's action, so the student is told.
 */

/** Points given straight to a student, as an earlier adjustment would (the triggers keep the total). */
async function givePoints(tenantId: string, studentId: string, hundredths: number) {
  const id = uuidv7();
  await fixtureD1.prepare(
    "INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, reason, awarded_at) VALUES (?, ?, ?, 'manual', NULL, ?, ?, 'seed', ?)",
  )
    .bind(id, tenantId, studentId, `manual:${id}`, hundredths, Date.now())
    .run();
}

describe("rating.top_entered (#63) from rule awards", () => {
  it("an acceptance that lifts the student from 11th to 10th: one push with the rank, the total and the school-local date in its key", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    await completionRulesOff(school.id);
    // Ten students with 5.00 each, ahead of the student's 0.00 (rank 11), and an inactive one with more, who does not count.
    for (let i = 0; i < 10; i++) await givePoints(school.id, (await createUser(school.id, { role: "student" })).id, 500);
    await givePoints(school.id, (await createUser(school.id, { role: "student", isActive: false })).id, 9000);

    const assignment = await insertAssignment(school.id, { title: "Essay", maxScoreHundredths: 1000, maxAttempts: null });
    await assignmentCourse(school.id, assignment.id, [student.id]);
    const draft = await draftOf(student, assignment.id);
    expect((await submit(student, draft.id)).status).toBe(200);
    // 5.00 of 10.00: 10.00 × 50 % = 5.00, level with the ten: rank 1 (competition ranking).
    expect((await review(admin, draft.id, { status: "accepted", score: "5.00" })).status).toBe(200);
    expect(await totalOf(school.id, student.id)).toBe("5.00");

    const pushes = (await outboxRows(school.id)).filter((row) => row.eventCode === "rating.top_entered");
    const localDate = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tashkent", year: "numeric", month: "2-digit", day: "2-digit" });
    expect(pushes).toHaveLength(1);
    expect(pushes[0]).toMatchObject({ userId: student.id, aggregateType: "point_event" });
    expect(pushes[0]!.data).toMatchObject({ event_code: "rating.top_entered", rank: 1, total_points: "5.00" });
    // The school's local date (the factory's schools are in Asia/Tashkent).
    expect(pushes[0]!.dedupeKey).toBe(`rating.top_entered:${student.id}:${localDate.format(Date.now())}`);
  });

  it("no push while the award leaves the student outside the top 10", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    await completionRulesOff(school.id);
    for (let i = 0; i < 10; i++) await givePoints(school.id, (await createUser(school.id, { role: "student" })).id, 500);
    const assignment = await insertAssignment(school.id, { maxScoreHundredths: 1000 });
    await assignmentCourse(school.id, assignment.id, [student.id]);
    const draft = await draftOf(student, assignment.id);
    await submit(student, draft.id);
    // 4.99 < 5.00: still 11th.
    expect((await review(admin, draft.id, { status: "accepted", score: "4.99" })).status).toBe(200);
    expect(await totalOf(school.id, student.id)).toBe("4.99");
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "rating.top_entered")).toEqual([]);
  });
});
