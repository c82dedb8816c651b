import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { insertCourseTree } from "../helpers/courses";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { createUser, db } from "../helpers/factories";
import { addGroupCurator, addMember, as, createGroup, schoolWithAdmin } from "../helpers/users";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import { schoolD1 } from "../helpers/databases";

describe("race: concurrent enrollments of one group in one course", () => {
  it("8 concurrent POST group-enrollments: one link, one 201, seven 200, each member's source once, one #55 and one #31 each", async () => {
    const REQUESTS = 8;
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    const group = await createGroup(school.id);
    const curator = await createUser(school.id, { role: "curator" });
    await addPushDevice(school.id, curator.id);
    await addGroupCurator(group, curator.id);
    const students = await Promise.all(Array.from({ length: 5 }, () => createUser(school.id, { role: "student" })));
    for (const student of students) {
      await addMember(group, student.id);
      await addPushDevice(school.id, student.id);
    }
    // Every request waits at its write batch until all have got that far: none has written when the others start.
    const barrier = barrierD1(await schoolD1(school.id), { held: /insert into "?course_group_enrollments/i, parties: REQUESTS });
    const results = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) =>
        requestWithD1(barrier.db, i % 2 === 0 ? `/t/courses/${tree.courseId}/group-enrollments` : `/t/courses/${tree.courseId}/enroll-bulk`, {
          token: admin.token,
          tenant: admin.subdomain,
          body: { group_id: group.id },
        }),
      ),
    );
    expect(barrier.stats.releases).toEqual([REQUESTS]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((res) => res.body.data.group_enrollment.id)).size).toBe(1);
    // Exactly one request gave the new accesses; the others found them all.
    expect(results.map((res) => res.body.data.enrolled_count).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 5]);
    expect(results.every((res) => res.body.data.enrolled_count + res.body.data.already_enrolled_count === 5)).toBe(true);

    const links = await db().select().from(schema.courseGroupEnrollments).where(eq(schema.courseGroupEnrollments.courseId, tree.courseId));
    expect(links).toHaveLength(1);
    const sources = await db().select().from(schema.enrollmentSources).where(eq(schema.enrollmentSources.courseId, tree.courseId));
    expect(sources.map((source) => source.sourceKey)).toEqual(Array(5).fill(`group:${group.id}`));
    expect(new Set(sources.map((source) => source.studentId)).size).toBe(5);
    const enrollments = await db().select().from(schema.enrollments).where(eq(schema.enrollments.courseId, tree.courseId));
    expect(enrollments).toHaveLength(5);
    expect(enrollments.every((row) => row.removedAt === null && row.totalBlocks === 2)).toBe(true);

    const outbox = await outboxRows(school.id);
    expect(outbox.filter((row) => row.eventCode === "group.course_enrolled").map((row) => row.userId)).toEqual([curator.id]);
    const enrolled = outbox.filter((row) => row.eventCode === "course.enrolled").map((row) => row.userId);
    expect(enrolled.sort()).toEqual(students.map((student) => student.id).sort());
  });

  it("4 concurrent DELETEs of one link: one 200 with the counts, three 404, one #32 per student who lost access", async () => {
    const REQUESTS = 4;
    const { school, admin } = await schoolWithAdmin();
    await as(admin, "/t/notifications/admin/events/course.unenrolled", { method: "PATCH", body: { enabled: true } });
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const students = await Promise.all(Array.from({ length: 3 }, () => createUser(school.id, { role: "student" })));
    for (const student of students) {
      await addMember(group, student.id);
      await addPushDevice(school.id, student.id);
    }
    expect((await as(admin, `/t/courses/${tree.courseId}/group-enrollments`, { body: { group_id: group.id } })).status).toBe(201);
    const barrier = barrierD1(await schoolD1(admin.tenantId), { held: /^delete from course_group_enrollments/im, parties: REQUESTS });
    const results = await Promise.all(
      Array.from({ length: REQUESTS }, () =>
        requestWithD1(barrier.db, `/t/courses/${tree.courseId}/group-enrollments/${group.id}`, { method: "DELETE", token: admin.token, tenant: admin.subdomain }),
      ),
    );
    expect(barrier.stats.releases).toEqual([REQUESTS]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 404, 404, 404]);
    expect(results.find((res) => res.status === 200)!.body.data).toEqual({ removed_count: 3, retained_count: 0 });
    const unenrolled = (await outboxRows(school.id)).filter((row) => row.eventCode === "course.unenrolled").map((row) => row.userId);
    expect(unenrolled.sort()).toEqual(students.map((student) => student.id).sort());
  });
});
