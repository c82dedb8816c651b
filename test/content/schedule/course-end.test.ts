import { eq, sql } from "drizzle-orm";
import * as schema from "../../../src/db/schema";
import { describe, expect, it } from "vitest";
import { nodeWindowSql } from "../../../src/content/common/windows";
import { courseEndedSql, courseEndSql } from "../../../src/content/enrollments/status";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { addMember, createGroup, schoolWithAdmin } from "../../helpers/users";
import { clearGroupWindow, clearWindow, days, putGroupWindow, putWindow } from "./helpers";

/**
 * The enrollment list's course end (`courseEndSql`: the course's windows read once per statement)
 * against the schedule rule itself (`nodeWindowSql` on the course node, which re-reads them per
 * student), for every enrollment of a course whose students cover each branch of the rule.
 */
describe("the enrollment status's course end equals the schedule rule, and so does \"ended\" at every edge", () => {
  it("default grid, one group, two groups, a group without a course window, an open end, a deleted group, a cleared group window", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 1] });
    const student = async () => {
      const user = await createUser(school.id, { role: "student" });
      await insertEnrollment(school.id, tree.courseId, user.id, { totalBlocks: 1 });
      return user.id;
    };
    const [none, inA, inB, inAC, inAD, inAB, inDeleted, inCleared] = [
      await student(), await student(), await student(), await student(),
      await student(), await student(), await student(), await student(),
    ];
    const courseNode = { course_id: tree.courseId, level: "course" as const };
    const ok = (res: { status: number }) => expect(res.status).toBe(200);
    ok(await putWindow(admin, "courses", tree.courseId, { starts_at: days(-20), ends_at: days(-1) }));
    const group = async (members: string[]) => {
      const created = await createGroup(school.id);
      for (const member of members) await addMember(created, member);
      return created;
    };
    const a = await group([inA, inAC, inAD, inAB]);
    ok(await putGroupWindow(admin, a.id, courseNode, { ends_at: days(3) }));
    const b = await group([inB, inAB]);
    ok(await putGroupWindow(admin, b.id, { ...courseNode, level: "module", module_id: tree.modules[0]!.id }, { ends_at: days(2) }));
    const c = await group([inAC]);
    ok(await putGroupWindow(admin, c.id, courseNode, { ends_at: days(5) }));
    const d = await group([inAD]);
    ok(await putGroupWindow(admin, d.id, courseNode, { starts_at: days(-3), ends_at: null }));
    const deleted = await group([inDeleted]);
    ok(await putGroupWindow(admin, deleted.id, courseNode, { ends_at: days(9) }));
    // A deleted group keeps its windows and members in the tables; the rule ignores them.
    await db().update(schema.groups).set({ deletedAt: Date.now() }).where(eq(schema.groups.id, deleted.id));
    const cleared = await group([inCleared]);
    ok(await putGroupWindow(admin, cleared.id, courseNode, { ends_at: days(9) }));
    ok(await clearGroupWindow(admin, cleared.id, courseNode));

    // The end itself, and "ended" at each end's edge (a millisecond before and after) and today.
    const compare = async () => {
      const rows = await db().all<{ student_id: string; fast: number | null; rule: number | null }>(sql`
        SELECT e.student_id, ${courseEndSql(school.id, tree.courseId, sql`e.student_id`)} AS fast,
          json_extract(${nodeWindowSql(school.id, tree.courseId, sql`e.student_id`, tree.courseId)}, '$[1]') AS rule
        FROM enrollments e WHERE e.tenant_id = ${school.id} AND e.course_id = ${tree.courseId}`);
      expect(rows).toHaveLength(8);
      for (const row of rows) expect({ student: row.student_id, end: row.fast }).toEqual({ student: row.student_id, end: row.rule });
      const edges = [Date.now(), ...rows.flatMap((row) => (row.rule === null ? [] : [row.rule - 1, row.rule, row.rule + 1]))];
      for (const now of new Set(edges)) {
        const ended = await db().all<{ student_id: string; fast: number | null; rule: number | null }>(sql`
          SELECT e.student_id, ${courseEndedSql(school.id, tree.courseId, sql`e.student_id`, now)} AS fast,
            json_extract(${nodeWindowSql(school.id, tree.courseId, sql`e.student_id`, tree.courseId)}, '$[1]') < ${now} AS rule
          FROM enrollments e WHERE e.tenant_id = ${school.id} AND e.course_id = ${tree.courseId}`);
        for (const row of ended) expect({ student: row.student_id, now, ended: row.fast === 1 }).toEqual({ student: row.student_id, now, ended: row.rule === 1 });
      }
      return new Map(rows.map((row) => [row.student_id, row.fast]));
    };
    const ends = await compare();
    const defaultEnd = ends.get(none);
    expect(defaultEnd).toBeTypeOf("number");
    expect([inDeleted, inCleared].map((id) => ends.get(id))).toEqual([defaultEnd, defaultEnd]);
    expect([inB, inAD, inAB].map((id) => ends.get(id))).toEqual([null, null, null]);
    expect(ends.get(inAC)!).toBeGreaterThan(ends.get(inA)!);
    expect(ends.get(inA)!).toBeGreaterThan(defaultEnd!);

    // Without the default window, a student of no group has no end either.
    ok(await clearWindow(admin, "courses", tree.courseId));
    const after = await compare();
    expect([none, inDeleted, inCleared].map((id) => after.get(id))).toEqual([null, null, null]);
    expect(after.get(inAC)).toBe(ends.get(inAC));
  });
});
