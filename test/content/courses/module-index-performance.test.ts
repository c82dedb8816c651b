import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, type Tree } from "../../helpers/courses";
import { countingD1 } from "../../helpers/d1-counter";
import { db } from "../../helpers/factories";
import { createGroup, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** Runs one request through the app with a D1 binding that counts what the request asks of it. */
async function countedRequest(member: Member, path: string) {
  const counting = countingD1(await schoolD1(member.tenantId));
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
    envWith(counting.db),
  );
  return { status: response.status, body: (await response.json()) as any, counts: { ...counting.counts } };
}

/**
 * D1 round trips of a request: each batch is one, each statement outside a batch is one. The
 * module index is one statement (course, modules, lessons, blocks, enrollment and completions as
 * JSON columns of one row) sent as a batch, so everything prepared beyond it ran on its own.
 */
const BATCHED = 1;
const roundTrips = (counts: { prepare: number; batch: number }) => counts.batch + (counts.prepare - BATCHED * counts.batch);

/** A sequential course with the student enrolled, every third block completed and one lesson behind a group. */
async function studentCourse(tenantId: string, student: Member, shape: [number, number, number]): Promise<Tree> {
  const tree = await insertCourseTree(tenantId, { sequential: true, shape });
  const enrollmentId = await insertEnrollment(tenantId, tree.courseId, student.id);
  const lessonOf = new Map(tree.modules.flatMap((m) => m.lessons.flatMap((l) => l.blocks.map((b) => [b, l.id] as const))));
  const rows = tree.blockIds
    .filter((_, i) => i % 3 === 0)
    .map((blockId) => ({
      id: uuidv7(),
      tenantId,
      courseId: tree.courseId,
      lessonId: lessonOf.get(blockId)!,
      blockId,
      studentId: student.id,
      enrollmentId,
      source: "manual" as const,
      completedAt: Date.now(),
    }));
  for (let i = 0; i < rows.length; i += 10) await db().insert(schema.blockCompletions).values(rows.slice(i, i + 10));
  const group = await createGroup(tenantId);
  await db().insert(schema.lessonGroups).values({ tenantId, lessonId: tree.lessonIds.at(-1)!, groupId: group.id, createdAt: 1 });
  return tree;
}

describe("GET /t/courses/:id/modules at scale", () => {
  it("answers a student's index of a 10×10×5 course in 2 D1 round trips (auth, one batch), as for a 1×1×1 course", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const big = await studentCourse(school.id, student, [10, 10, 5]);
    const small = await studentCourse(school.id, student, [1, 1, 1]);

    const bigRun = await countedRequest(student, `/t/courses/${big.courseId}/modules`);
    expect(bigRun.status).toBe(200);
    expect(bigRun.body.data.modules).toHaveLength(10);
    // The last lesson is behind a group the student is not in.
    expect(bigRun.body.data.total_lessons).toBe(99);
    const blocks = bigRun.body.data.modules.flatMap((m: any) => m.lessons.flatMap((l: any) => l.blocks));
    expect(blocks).toHaveLength(495);
    // Block 0 is complete, block 1 is the first incomplete one: everything after it is locked.
    expect(blocks.slice(0, 3).map((b: any) => b.locked)).toEqual([false, false, true]);
    expect(blocks.filter((b: any) => b.locked)).toHaveLength(493);

    const smallRun = await countedRequest(student, `/t/courses/${small.courseId}/modules`);
    expect(smallRun.status).toBe(200);
    expect(bigRun.counts).toEqual(smallRun.counts);
    // Auth (1 statement), then one batch of the six reads: 2 round trips.
    expect(bigRun.counts).toEqual({ prepare: 1 + BATCHED, batch: 1, exec: 0 });
    expect(roundTrips(bigRun.counts)).toBe(2);
    expect(roundTrips(bigRun.counts)).toBeLessThanOrEqual(3);
  });

  it("GET /t/modules/:id and /t/modules/:id/lessons read the same way", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await studentCourse(school.id, student, [10, 10, 5]);
    for (const path of [`/t/modules/${tree.modules[9]!.id}`, `/t/modules/${tree.modules[9]!.id}/lessons`]) {
      const run = await countedRequest(student, path);
      expect(run.status).toBe(200);
      expect(run.counts).toEqual({ prepare: 1 + BATCHED, batch: 1, exec: 0 });
    }
  });
});
