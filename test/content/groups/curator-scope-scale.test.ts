import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { uuidv7 } from "../../../src/core/lib/ids";
import { insertCourseTree } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { addGroupCurator, as, createGroup, curatorWith, schoolWithAdmin, signedIn } from "../../helpers/users";

const STUDENTS = 2000;
/** D1 takes 100 bound parameters per statement; the widest row here has 11 columns. */
const ROWS_PER_STATEMENT = 9;

type Table = Parameters<ReturnType<typeof db>["insert"]>[0];

/** Inserts the rows in slices of at most nine per statement, all slices in one batch. */
async function insertSliced(table: Table, rows: object[]) {
  const statements = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    statements.push(db().insert(table).values(rows.slice(start, start + ROWS_PER_STATEMENT) as never));
  }
  if (statements.length > 0) await db().batch(statements as never);
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe("a restricted curator's scope in a school of 2,000 students", () => {
  it("is the union of individual students and curated groups' members, without duplicates, in the users list and a course's counts", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const otherCurator = await createUser(school.id, { role: "curator" });
    // One normally created student lends its password hash to the rest.
    const template = await createUser(school.id, { role: "student" });
    const base = Date.now() - STUDENTS * 1000;
    const students = range(0, STUDENTS).map((i) => {
      const at = base + i * 1000;
      return {
        id: uuidv7(at),
        tenantId: school.id,
        email: `scale.${i}.${school.id.slice(-8)}@example.test`,
        passwordHash: template.passwordHash,
        firstName: "Scale",
        lastName: `Student ${i}`,
        role: "student" as const,
        isActive: true,
        // 0-299: the curator's individual students.
        individualCuratorId: i < 300 ? curator.id : null,
        createdAt: at,
        updatedAt: at,
      };
    });
    await insertSliced(schema.users, students);
    const ids = students.map((student) => student.id);

    // Two curated groups of 400: each shares 100 members with the individual students, and 50 with the other group.
    const red = await createGroup(school.id, { name: "Red" });
    const blue = await createGroup(school.id, { name: "Blue" });
    const redMembers = [...range(0, 100), ...range(300, 600)];
    const blueMembers = [...range(100, 200), ...range(550, 850)];
    // Groups outside the scope: another curator's, and a deleted one of this curator.
    const foreign = await createGroup(school.id, { name: "Foreign" });
    const deleted = await createGroup(school.id, { name: "Deleted", deleted: true });
    const memberships = [
      [red, redMembers],
      [blue, blueMembers],
      [foreign, range(800, 1200)],
      [deleted, range(1500, 1600)],
    ] as const;
    const joinedAt = Date.now();
    await insertSliced(
      schema.groupMembers,
      memberships.flatMap(([group, members]) => members.map((i) => ({ tenantId: school.id, groupId: group.id, userId: ids[i]!, joinedAt }))),
    );
    for (const group of [red, blue, deleted]) await addGroupCurator(group, curator.id);
    await addGroupCurator(foreign, otherCurator.id);

    expect(redMembers).toHaveLength(400);
    expect(blueMembers).toHaveLength(400);
    const expected = [...new Set([...range(0, 300), ...redMembers, ...blueMembers])].map((i) => ids[i]!).sort();
    expect(expected).toHaveLength(850);

    // The users list, paged through: exactly the scope, each student once.
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const res = await as(curator, `/t/users?limit=200&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.data.total).toBe(850);
      const rows = res.body.data.users as { id: string; role: string }[];
      if (rows.length === 0) break;
      expect(rows.every((row) => row.role === "student")).toBe(true);
      seen.push(...rows.map((row) => row.id));
    }
    expect(seen).toHaveLength(850);
    expect([...seen].sort()).toEqual(expected);

    // A course every student is enrolled in: the curator counts their own.
    const tree = await insertCourseTree(school.id);
    const enrolledAt = Date.now();
    const enrollments = ids.map((studentId) => ({
      id: uuidv7(),
      tenantId: school.id,
      courseId: tree.courseId,
      studentId,
      enrolledAt,
      enrolledBy: admin.id,
      totalBlocks: 1,
      createdAt: enrolledAt,
      updatedAt: enrolledAt,
    }));
    await insertSliced(schema.enrollments, enrollments);
    await insertSliced(
      schema.enrollmentSources,
      enrollments.map((row) => ({
        tenantId: school.id,
        enrollmentId: row.id,
        courseId: tree.courseId,
        studentId: row.studentId,
        kind: "direct" as const,
        groupId: null,
        sourceKey: "direct",
        createdBy: admin.id,
        createdAt: enrolledAt,
      })),
    );
    const scoped = await as(curator, `/t/courses/${tree.courseId}/enrollments?limit=100`);
    expect(scoped.status).toBe(200);
    expect(scoped.body.data.counts.all).toBe(850);
    expect(scoped.body.data.total).toBe(850);
    expect((await as(admin, `/t/courses/${tree.courseId}/enrollments?limit=1`)).body.data.counts.all).toBe(STUDENTS);
  });
});
