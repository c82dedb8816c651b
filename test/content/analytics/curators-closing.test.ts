import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { addMember, assignIndividualCurator, createGroup, schoolWithAdmin, type Member } from "../../helpers/users";
import { insertAssignment } from "../assignments/helpers";
import { assignmentCourse, worksheet } from "../submissions/helpers";
import { curatorAnalytics, handIn, MARCH, march, person } from "./helpers";

/**
 * Curator analytics reads the students' closing dates for the whole set at once; the worksheet's
 * `late` reads them one student at a time. Both must be the one rule (effective windows over the
 * student's grids, most lenient per node, a node closed only when every grid has a window on it,
 * `allow_after_end` never closing, the earliest over the lessons the student reaches). Every
 * student hands in once and has a curator of their own, so each curator row's `assignments_on_time`
 * is that student's verdict.
 *
 * Course 1 holds the assignment in its lesson: the default grid closes the lesson on March 10, G1's
 * on the 15th, G2's on the 20th; G3 closes only the module, on the 8th; G4 closes the lesson on the
 * 8th but allows hand-ins after the end; a deleted group's grid closes the lesson on the 28th.
 * Course 2 holds it too, in a lesson only group LG sees, under a course window of March 25.
 */
const EXPECTED_ON_TIME: Record<string, boolean> = {
  a: false, // default grid, handed in on the 12th
  b: true, // default grid, the 9th
  c: true, // G1 (15th), the 12th
  d: false, // G1, the 16th
  e: true, // G1 and G2: the later end (20th), the 17th
  f: false, // G3 only: the lesson has no window in G3, the module closes on the 8th; the 9th
  g: true, // G1 and G3: neither node has a window in both grids, no closing date; the 27th
  h: true, // G4: its end allows hand-ins; the 27th
  i: false, // a deleted group's grid does not count: the default grid, the 12th
  j: true, // course 1 enrollment removed; course 2 through LG (25th); the 22nd
  k: false, // as j, the 26th
  l: false, // course 2 enrolled but not in LG: course 1 only (10th), the 12th
  m: false, // both courses: the earlier (10th), the 12th
  n: true, // enrolled nowhere: no closing date, the 28th
  o: false, // G1 in course 1 (15th), the default grid in course 2 (25th): the 15th; the 16th
};

const HANDED_IN: Record<string, number> = {
  a: 12, b: 9, c: 12, d: 16, e: 17, f: 9, g: 27, h: 27, i: 12, j: 22, k: 26, l: 12, m: 12, n: 28, o: 16,
};

async function closeNode(tenantId: string, node: { courseId: string; moduleId: string; lessonId?: string }, endsAt: number, grid: string | null, allowAfterEnd = false) {
  const now = Date.now();
  const level = node.lessonId ? "lesson" : node.moduleId === "" ? "course" : "module";
  await db()
    .insert(schema.scheduleWindows)
    .values({
      id: uuidv7(),
      tenantId,
      courseId: node.courseId,
      groupId: grid,
      gridKey: grid ?? "",
      level,
      moduleId: level === "course" ? null : node.moduleId,
      lessonId: node.lessonId ?? null,
      nodeId: node.lessonId ?? (level === "course" ? node.courseId : node.moduleId),
      startsAt: null,
      endsAt,
      allowBeforeStart: false,
      allowAfterEnd,
      createdAt: now,
      updatedAt: now,
    });
}

describe("GET /analytics/curators: the late rule for a set of students equals the worksheet's per student", () => {
  let admin: Member;
  let assignmentId: string;
  const students: Record<string, string> = {};
  const curators: Record<string, string> = {};

  beforeAll(async () => {
    const setup = await schoolWithAdmin();
    admin = setup.admin;
    const t = setup.school.id;
    for (const key of Object.keys(EXPECTED_ON_TIME)) {
      students[key] = (await person(t, "student", key.toUpperCase(), "Student")).id;
      curators[key] = (await person(t, "curator", key.toUpperCase(), `Curator ${key}`)).id;
      await assignIndividualCurator(students[key]!, curators[key]!);
    }
    const assignment = await insertAssignment(t);
    assignmentId = assignment.id;
    const one = await assignmentCourse(t, assignment.id, ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "o"].map((key) => students[key]!));
    const two = await assignmentCourse(t, assignment.id, ["j", "k", "l", "m", "o"].map((key) => students[key]!));
    await db()
      .update(schema.enrollments)
      .set({ removedAt: Date.now() })
      .where(and(eq(schema.enrollments.courseId, one.courseId), eq(schema.enrollments.studentId, students.j!)));
    await db()
      .update(schema.enrollments)
      .set({ removedAt: Date.now() })
      .where(and(eq(schema.enrollments.courseId, one.courseId), eq(schema.enrollments.studentId, students.k!)));

    const groups: Record<string, { id: string; tenantId: string }> = {};
    for (const name of ["G1", "G2", "G3", "G4", "LG"]) groups[name] = await createGroup(t, { name });
    groups.G5 = await createGroup(t, { name: "G5", deleted: true });
    const members: Record<string, string[]> = {
      G1: ["c", "d", "e", "g", "o"],
      G2: ["e"],
      G3: ["f", "g"],
      G4: ["h"],
      G5: ["i"],
      LG: ["j", "k", "m", "o"],
    };
    for (const [name, keys] of Object.entries(members)) for (const key of keys) await addMember(groups[name]!, students[key]!);

    const lesson1 = { courseId: one.courseId, moduleId: one.modules[0]!.id, lessonId: one.lessonIds[0]! };
    await closeNode(t, lesson1, march(10), null);
    await closeNode(t, lesson1, march(15), groups.G1!.id);
    await closeNode(t, lesson1, march(20), groups.G2!.id);
    await closeNode(t, { courseId: one.courseId, moduleId: one.modules[0]!.id }, march(8), groups.G3!.id);
    await closeNode(t, lesson1, march(8), groups.G4!.id, true);
    await closeNode(t, lesson1, march(28), groups.G5!.id);
    await closeNode(t, { courseId: two.courseId, moduleId: "" }, march(25), null);
    await db().insert(schema.lessonGroups).values({ tenantId: t, lessonId: two.lessonIds[0]!, groupId: groups.LG!.id, createdAt: Date.now() });

    for (const [key, day] of Object.entries(HANDED_IN)) await handIn(t, assignment.id, students[key]!, march(day));
  });

  it("each student's verdict is the expected one and the worksheet's", async () => {
    const res = await curatorAnalytics(admin, MARCH);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byCurator = new Map((res.body.data.curators as { curator_id: string; assignments_on_time: { students: number } }[]).map((row) => [row.curator_id, row]));
    const onTime = Object.fromEntries(Object.keys(EXPECTED_ON_TIME).map((key) => [key, byCurator.get(curators[key]!)?.assignments_on_time.students === 1]));
    expect(onTime).toEqual(EXPECTED_ON_TIME);
    expect(res.body.data.summary.assignments_on_time.students).toBe(Object.values(EXPECTED_ON_TIME).filter(Boolean).length);

    const sheet = await worksheet(admin, assignmentId, "?limit=100");
    expect(sheet.status, JSON.stringify(sheet.body)).toBe(200);
    const late = Object.fromEntries((sheet.body.data.submissions as { student_id: string; late: boolean }[]).map((row) => [row.student_id, row.late]));
    expect(Object.fromEntries(Object.keys(EXPECTED_ON_TIME).map((key) => [key, !late[students[key]!]]))).toEqual(EXPECTED_ON_TIME);
  });
});
