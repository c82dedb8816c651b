import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { uuidv7 } from "../../../src/core/lib/ids";
import { assignmentClosingSql } from "../../../src/content/assignments/deadline";
import { insertCourseTree, insertEnrollment, type Tree } from "../../helpers/courses";
import { createSchool, createUser, db } from "../../helpers/factories";
import { addMember, createGroup } from "../../helpers/users";

const DAY = 86_400_000;
const BASE = Date.parse("2031-03-10T05:00:00Z");

async function assignment(tenantId: string) {
  const id = uuidv7();
  await db().insert(schema.assignments).values({ id, tenantId, title: "Essay", createdAt: BASE, updatedAt: BASE });
  return id;
}

/** A course whose every block is an `assignment_ref` naming the assignment, and an enrolled student. */
async function setup(shape: [number, number, number] = [1, 1, 1]) {
  const school = await createSchool({ expiresAt: null });
  const assignmentId = await assignment(school.id);
  const tree = await insertCourseTree(school.id, { blockType: "assignment_ref", refId: assignmentId, payload: {}, shape });
  const student = await createUser(school.id, { role: "student" });
  await insertEnrollment(school.id, tree.courseId, student.id);
  return { tenantId: school.id, assignmentId, tree, studentId: student.id };
}

type Level = "course" | "module" | "lesson";

async function window(tenantId: string, tree: Tree, level: Level, endsAt: number | null, options: { lessonIndex?: number; groupId?: string; allowAfterEnd?: boolean } = {}) {
  const lesson = tree.lessonIds[options.lessonIndex ?? 0]!;
  const moduleId = tree.modules.find((m) => m.lessons.some((l) => l.id === lesson))!.id;
  const nodeId = level === "course" ? tree.courseId : level === "module" ? moduleId : lesson;
  await db().insert(schema.scheduleWindows).values({
    id: uuidv7(), tenantId, courseId: tree.courseId, groupId: options.groupId ?? null, gridKey: options.groupId ?? "", level,
    moduleId: level === "course" ? null : moduleId, lessonId: level === "lesson" ? lesson : null, nodeId,
    startsAt: null, endsAt, allowBeforeStart: false, allowAfterEnd: options.allowAfterEnd ?? false, createdAt: BASE, updatedAt: BASE,
  });
}

async function closing(tenantId: string, assignmentId: string, studentId: string): Promise<number | null> {
  const [row] = await db().all<{ closing: number | null }>(sql`SELECT ${assignmentClosingSql(tenantId, assignmentId, studentId)} AS closing`);
  return row!.closing;
}

describe("assignmentClosingSql", () => {
  it("is null when no lesson holds the assignment, or the student reaches none", async () => {
    const school = await createSchool({ expiresAt: null });
    const standalone = await assignment(school.id);
    const student = await createUser(school.id, { role: "student" });
    expect(await closing(school.id, standalone, student.id)).toBeNull();

    const { tenantId, assignmentId, tree } = await setup();
    await window(tenantId, tree, "lesson", BASE + DAY);
    const outsider = await createUser(tenantId, { role: "student" });
    expect(await closing(tenantId, assignmentId, outsider.id)).toBeNull();
  });

  it("is null when the lesson has no closing window, and the lesson window's end otherwise", async () => {
    const { tenantId, assignmentId, tree, studentId } = await setup();
    expect(await closing(tenantId, assignmentId, studentId)).toBeNull();
    await window(tenantId, tree, "lesson", BASE + 3 * DAY);
    expect(await closing(tenantId, assignmentId, studentId)).toBe(BASE + 3 * DAY);
  });

  it("takes the module's end when it closes before the lesson's, and the course's likewise", async () => {
    const { tenantId, assignmentId, tree, studentId } = await setup();
    await window(tenantId, tree, "lesson", BASE + 3 * DAY);
    await window(tenantId, tree, "module", BASE + 2 * DAY);
    expect(await closing(tenantId, assignmentId, studentId)).toBe(BASE + 2 * DAY);
    await window(tenantId, tree, "course", BASE + DAY);
    expect(await closing(tenantId, assignmentId, studentId)).toBe(BASE + DAY);
  });

  it("ignores an end with allow_after_end", async () => {
    const { tenantId, assignmentId, tree, studentId } = await setup();
    await window(tenantId, tree, "module", BASE + DAY, { allowAfterEnd: true });
    await window(tenantId, tree, "lesson", BASE + 3 * DAY, { allowAfterEnd: true });
    expect(await closing(tenantId, assignmentId, studentId)).toBeNull();
    await window(tenantId, tree, "course", BASE + 5 * DAY);
    expect(await closing(tenantId, assignmentId, studentId)).toBe(BASE + 5 * DAY);
  });

  it("takes the earliest over the lessons holding it; a lesson the student cannot see does not count", async () => {
    const { tenantId, assignmentId, tree, studentId } = await setup([1, 2, 1]);
    await window(tenantId, tree, "lesson", BASE + 4 * DAY, { lessonIndex: 0 });
    await window(tenantId, tree, "lesson", BASE + 2 * DAY, { lessonIndex: 1 });
    expect(await closing(tenantId, assignmentId, studentId)).toBe(BASE + 2 * DAY);

    // Lesson access groups hide the second lesson from the student: only the first one's date remains.
    const hidden = await createGroup(tenantId);
    await db().insert(schema.lessonGroups).values({ tenantId, lessonId: tree.lessonIds[1]!, groupId: hidden.id, createdAt: BASE });
    expect(await closing(tenantId, assignmentId, studentId)).toBe(BASE + 4 * DAY);
  });

  it("follows a member's group grid instead of the default grid", async () => {
    const { tenantId, assignmentId, tree, studentId } = await setup();
    await window(tenantId, tree, "module", null);
    await window(tenantId, tree, "lesson", BASE + DAY);
    const group = await createGroup(tenantId);
    await window(tenantId, tree, "lesson", BASE + 6 * DAY, { groupId: group.id });
    const member = await createUser(tenantId, { role: "student" });
    await insertEnrollment(tenantId, tree.courseId, member.id);
    await addMember(group, member.id);

    expect(await closing(tenantId, assignmentId, studentId)).toBe(BASE + DAY);
    expect(await closing(tenantId, assignmentId, member.id)).toBe(BASE + 6 * DAY);
  });

  it("serves a set of students in one statement (ids as SQL of the enclosing query)", async () => {
    const { tenantId, assignmentId, tree, studentId } = await setup();
    await window(tenantId, tree, "lesson", BASE + DAY);
    const rows = await db().all<{ id: string; closing: number | null }>(
      sql`SELECT u.id, ${assignmentClosingSql(tenantId, sql`a.id`, sql`u.id`)} AS closing
        FROM users u JOIN assignments a ON a.id = ${assignmentId} WHERE u.tenant_id = ${tenantId} AND u.role = 'student'`,
    );
    expect(rows).toEqual([{ id: studentId, closing: BASE + DAY }]);
  });
});
