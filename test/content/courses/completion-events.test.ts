import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { roundTripD1 } from "../../helpers/d1-counter";
import { db } from "../../helpers/factories";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * The completion that completes a course announces it: `course.student_completed` to the
 * student's curators, `course.completed` to the student (never from the student's own request:
 * the actor gets no push). Once per enrollment; nothing while the event is off. And the cost of a
 * completion in D1 round trips.
 */

const complete = (member: Member, blockId: string) => as(member, `/t/blocks/${blockId}/complete`, { method: "POST" });

async function setup(shape: [number, number, number] = [1, 1, 2]) {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const curator = await signedIn(school, curatorWith({}));
  await assignIndividualCurator(student.id, curator.id);
  await addPushDevice(school.id, student.id);
  await addPushDevice(school.id, curator.id);
  const tree = await insertCourseTree(school.id, { shape, title: "Algebra" });
  const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
  return { school, admin, student, curator, tree, enrollmentId };
}

const courseEvents = async (tenantId: string) =>
  (await outboxRows(tenantId)).filter((row) => row.eventCode === "course.completed" || row.eventCode === "course.student_completed");

describe("course completion events", () => {
  it("the last block: course.student_completed to the individual and group curators, once; course.completed not to the acting student", async () => {
    const { school, student, curator, tree, enrollmentId } = await setup();
    const groupCurator = await signedIn(school, curatorWith({}));
    await addPushDevice(school.id, groupCurator.id);
    const group = await createGroup(school.id);
    await addMember(group, student.id);
    await addGroupCurator(group, groupCurator.id);
    await db().update(schema.users).set({ firstName: "Dilnoza", lastName: "Karimova" }).where(eq(schema.users.id, student.id));

    await complete(student, tree.blockIds[0]!);
    expect(await courseEvents(school.id)).toEqual([]);
    expect((await complete(student, tree.blockIds[1]!)).body.data.progress.completed_at).toEqual(expect.any(String));
    await complete(student, tree.blockIds[1]!);

    const rows = await courseEvents(school.id);
    expect(rows.map((row) => [row.eventCode, row.userId]).sort()).toEqual(
      [
        ["course.student_completed", curator.id],
        ["course.student_completed", groupCurator.id],
      ].sort(),
    );
    for (const row of rows) {
      expect(row).toMatchObject({
        aggregateType: "course",
        aggregateId: tree.courseId,
        dedupeKey: `course.student_completed:${enrollmentId}:${row.userId}`,
        body: "Dilnoza Karimova прошёл(ла) курс «Algebra».",
      });
      expect(row.data).toMatchObject({ event_code: "course.student_completed", course_id: tree.courseId, course_title: "Algebra", student_name: "Dilnoza Karimova" });
    }
  });

  it("a second student completing the same course notifies the shared curator again", async () => {
    const { school, student, curator, tree } = await setup([1, 1, 1]);
    const second = await signedIn(school, { role: "student" });
    await assignIndividualCurator(second.id, curator.id);
    await insertEnrollment(school.id, tree.courseId, second.id);
    await complete(student, tree.blockIds[0]!);
    await complete(second, tree.blockIds[0]!);
    expect((await courseEvents(school.id)).filter((row) => row.userId === curator.id)).toHaveLength(2);
  });

  it("nothing while the school has the event switched off", async () => {
    const { school, admin, student, tree } = await setup([1, 1, 1]);
    const off = await as(admin, "/t/notifications/admin/events/course.student_completed", { method: "PATCH", body: { enabled: false } });
    expect(off.status).toBe(200);
    expect((await complete(student, tree.blockIds[0]!)).body.data.progress.completed_at).toEqual(expect.any(String));
    expect(await courseEvents(school.id)).toEqual([]);
  });
});

describe("cost of POST /t/blocks/:id/complete", () => {
  const send = (member: Member, blockId: string, db: D1Database) =>
    app.request(
      `https://api.lms.localhost/api/v1/t/blocks/${blockId}/complete`,
      { method: "POST", headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
      envWith(db),
    );

  it("two round trips (authentication, one batch) for a completion, a repeat and a refusal; the course-completing one adds a second batch", async () => {
    const { student, tree } = await setup([1, 1, 3]);
    for (const blockId of [tree.blockIds[0]!, tree.blockIds[0]!, tree.blockIds[1]!]) {
      const counted = roundTripD1(await schoolD1(student.tenantId));
      expect((await send(student, blockId, counted.db)).status).toBe(200);
      expect(counted.stats).toEqual({ batches: 1, statements: 1 });
    }
    const last = roundTripD1(await schoolD1(student.tenantId));
    expect((await send(student, tree.blockIds[2]!, last.db)).status).toBe(200);
    // Authentication, the first batch (which reads the events' settings and leaves the course-completing insert to the second), the batch with the pushes.
    expect(last.stats).toEqual({ batches: 2, statements: 1 });
    const repeat = roundTripD1(await schoolD1(student.tenantId));
    expect((await send(student, tree.blockIds[2]!, repeat.db)).status).toBe(200);
    expect(repeat.stats).toEqual({ batches: 1, statements: 1 });
    const stranger = await signedIn((await schoolWithAdmin()).school, { role: "student" });
    const refused = roundTripD1(await schoolD1(stranger.tenantId));
    expect((await send(stranger, tree.blockIds[0]!, refused.db)).status).toBe(404);
    expect(refused.stats).toEqual({ batches: 1, statements: 1 });
  });
});
