import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { insertCourseTree } from "../helpers/courses";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { db } from "../helpers/factories";
import { schoolWithAdmin, signedIn } from "../helpers/users";
import { schoolD1 } from "../helpers/databases";

describe("race: concurrent self-enrollments", () => {
  it("8 concurrent POST /t/courses/:id/enroll of one student: one 201, seven 200, one enrollment with one direct source", async () => {
    const ENROLLS = 8;
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 3] });
    // Every request waits at its write batch until all have got that far: none has written when the others start.
    const barrier = barrierD1(await schoolD1(school.id), { held: /^insert into enrollments/i, parties: ENROLLS });
    const results = await Promise.all(
      Array.from({ length: ENROLLS }, () => requestWithD1(barrier.db, `/t/courses/${tree.courseId}/enroll`, { token: student.token, tenant: student.subdomain })),
    );
    expect(barrier.stats.releases).toEqual([ENROLLS]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((res) => res.body.data.id)).size).toBe(1);

    const enrollments = await db()
      .select()
      .from(schema.enrollments)
      .where(and(eq(schema.enrollments.courseId, tree.courseId), eq(schema.enrollments.studentId, student.id)));
    expect(enrollments).toHaveLength(1);
    expect(enrollments[0]).toMatchObject({ id: results[0]!.body.data.id, removedAt: null, totalBlocks: 3 });
    const sources = await db().select().from(schema.enrollmentSources).where(eq(schema.enrollmentSources.enrollmentId, enrollments[0]!.id));
    expect(sources.map((source) => source.sourceKey)).toEqual(["direct"]);
  });
});
