import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../src/core/lib/ids";
import * as schema from "../../src/db/schema";
import { insertCourseTree } from "../helpers/courses";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { createUser, db } from "../helpers/factories";
import { createGroup, schoolWithAdmin } from "../helpers/users";
import { schoolD1 } from "../helpers/databases";

describe("race: concurrent additions to a group", () => {
  it("8 concurrent POST /t/groups/:id/members of one student: one membership, one source per course, reported added once", async () => {
    const ADDS = 8;
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const courseIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { courseId } = await insertCourseTree(school.id);
      await db().insert(schema.courseGroupEnrollments).values({ id: uuidv7(), tenantId: school.id, courseId, groupId: group.id, enrolledAt: Date.now(), enrolledBy: null });
      courseIds.push(courseId);
    }
    const student = await createUser(school.id, { role: "student" });
    const other = await createUser(school.id, { role: "student" });
    // Every request waits at its write batch until all have got that far: none has written when the others start.
    const barrier = barrierD1(await schoolD1(school.id), { held: /^insert into group_members/i, parties: ADDS });
    const results = await Promise.all(
      Array.from({ length: ADDS }, (_, i) =>
        requestWithD1(barrier.db, `/t/groups/${group.id}/members`, { token: admin.token, tenant: admin.subdomain, body: { student_ids: i % 2 ? [student.id, other.id] : [student.id] } }),
      ),
    );
    expect(barrier.stats.releases).toEqual([ADDS]);
    expect(results.map((res) => res.status)).toEqual(Array(ADDS).fill(200));
    const added = results.flatMap((res) => res.body.data.added as string[]);
    expect(added.filter((id) => id === student.id)).toEqual([student.id]);
    expect(added.filter((id) => id === other.id)).toEqual([other.id]);

    const memberships = await db().select().from(schema.groupMembers).where(eq(schema.groupMembers.groupId, group.id));
    expect(memberships.map((row) => row.userId).sort()).toEqual([student.id, other.id].sort());
    for (const courseId of courseIds) {
      const enrollments = await db()
        .select()
        .from(schema.enrollments)
        .where(and(eq(schema.enrollments.courseId, courseId), eq(schema.enrollments.studentId, student.id)));
      expect(enrollments).toHaveLength(1);
      const sources = await db().select().from(schema.enrollmentSources).where(eq(schema.enrollmentSources.enrollmentId, enrollments[0]!.id));
      expect(sources.map((source) => source.sourceKey)).toEqual([`group:${group.id}`]);
    }
  });
});
