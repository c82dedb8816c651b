import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../src/core/lib/clock";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { addMember, as, createGroup, schoolWithAdmin } from "../../helpers/users";
import { days, putGroupWindow, putWindow } from "./helpers";

describe("enrollment status buckets and the effective course end", () => {
  it("past the student's effective course end a course not done is risk, started or not; done stays done; a group's later end keeps its members active", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 1] });
    const now = Date.now();
    const student = async (values: Partial<typeof schema.enrollments.$inferInsert>) => {
      const user = await createUser(school.id, { role: "student" });
      const enrollmentId = await insertEnrollment(school.id, tree.courseId, user.id, { totalBlocks: 1 });
      if (Object.keys(values).length > 0) await db().update(schema.enrollments).set(values).where(eq(schema.enrollments.id, enrollmentId));
      return user;
    };
    const active = await student({ lastAccessedAt: now - DAY_MS });
    const fresh = await student({});
    const done = await student({ blocksCompleted: 1, completedAt: now - DAY_MS, lastAccessedAt: now - DAY_MS });
    const grouped = await student({ lastAccessedAt: now - DAY_MS });
    const statuses = async () => {
      const res = await as(admin, `/t/courses/${tree.courseId}/enrollments?limit=100`);
      expect(res.status).toBe(200);
      const byStudent = new Map((res.body.data.enrollments as { student_id: string; status: string }[]).map((row) => [row.student_id, row.status]));
      return { rows: [active, fresh, done, grouped].map((user) => byStudent.get(user.id)), counts: res.body.data.counts };
    };
    expect((await statuses()).rows).toEqual(["active", "notstarted", "done", "active"]);

    await putWindow(admin, "courses", tree.courseId, { starts_at: days(-20), ends_at: days(-1) });
    const group = await createGroup(school.id);
    await addMember(group, grouped.id);
    await putGroupWindow(admin, group.id, { course_id: tree.courseId, level: "course" }, { ends_at: days(3) });
    const after = await statuses();
    expect(after.rows).toEqual(["risk", "risk", "done", "active"]);
    expect(after.counts).toMatchObject({ active: 1, risk: 2, done: 1, notstarted: 0 });
    expect((await as(admin, `/t/courses/${tree.courseId}/enrollments?status=risk`)).body.data.total).toBe(2);
  });
});
