import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { db } from "../helpers/factories";
import { assignIndividualCurator, curatorWith, schoolWithAdmin, signedIn } from "../helpers/users";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import { schoolD1 } from "../helpers/databases";

const PARTIES = 8;

async function setup(shape: [number, number, number]) {
  const { school } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const curator = await signedIn(school, curatorWith({}));
  await assignIndividualCurator(student.id, curator.id);
  await addPushDevice(school.id, curator.id);
  const tree = await insertCourseTree(school.id, { shape });
  await insertEnrollment(school.id, tree.courseId, student.id);
  return { school, student, curator, tree };
}

/** Every completion waits at its batch until all have got that far: none sees another's row. */
async function concurrentCompletions(student: { token: string; subdomain: string; tenantId: string }, blockId: string, expectedReleases: number[]) {
  const barrier = barrierD1(await schoolD1(student.tenantId), { held: /^INSERT INTO block_completions/i, parties: PARTIES });
  const results = await Promise.all(
    Array.from({ length: PARTIES }, () => requestWithD1(barrier.db, `/t/blocks/${blockId}/complete`, { token: student.token, tenant: student.subdomain })),
  );
  expect(barrier.stats.releases).toEqual(expectedReleases);
  expect(results.map((res) => res.status)).toEqual(Array(PARTIES).fill(200));
  expect(new Set(results.map((res) => res.body.data.completion.id)).size).toBe(1);
  return results;
}

async function stored(studentId: string) {
  const completions = await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, studentId));
  const [enrollment] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, studentId));
  return { completions, enrollment: enrollment! };
}

describe("race: concurrent completions of one block by one student", () => {
  it(`${PARTIES} at once: one completion row, all 200 with that record, blocks_completed 1`, async () => {
    const { student, tree } = await setup([1, 1, 3]);
    const results = await concurrentCompletions(student, tree.blockIds[0]!, [PARTIES]);
    const { completions, enrollment } = await stored(student.id);
    expect(completions.map((row) => row.id)).toEqual([results[0]!.body.data.completion.id]);
    expect(enrollment).toMatchObject({ blocksCompleted: 1, totalBlocks: 3, completedAt: null });
    expect(results.map((res) => res.body.data.progress.blocks_completed)).toEqual(Array(PARTIES).fill(1));
  });

  it(`${PARTIES} at once on the last block: one row, the course completed once, one course.student_completed push`, async () => {
    const { school, student, curator, tree } = await setup([1, 1, 2]);
    expect((await requestWithD1(env.DB, `/t/blocks/${tree.blockIds[0]}/complete`, { token: student.token, tenant: student.subdomain })).status).toBe(200);
    // Each request's first batch leaves the course-completing insert to its second batch: two rounds at the barrier.
    const results = await concurrentCompletions(student, tree.blockIds[1]!, [PARTIES, PARTIES]);
    const { completions, enrollment } = await stored(student.id);
    expect(completions).toHaveLength(2);
    expect(enrollment).toMatchObject({ blocksCompleted: 2, totalBlocks: 2, completedAt: expect.any(Number) });
    expect(new Set(results.map((res) => res.body.data.progress.completed_at))).toEqual(new Set([new Date(enrollment.completedAt!).toISOString()]));
    const pushes = (await outboxRows(school.id)).filter((row) => row.eventCode.startsWith("course."));
    expect(pushes.map((row) => [row.eventCode, row.userId])).toEqual([["course.student_completed", curator.id]]);
  });
});
