import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DAY_MS, HOUR_MS } from "../../../src/core/lib/clock";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, schoolWithAdmin, signedIn } from "../../helpers/users";
import { insertCompletion, withoutSchool } from "./helpers";

describe("GET /t/me/courses", () => {
  it("the student's active enrollments, most recently active first, then newest; unpublished courses stay, deleted ones go", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const other = await signedIn(school, { role: "student" });
    const now = Date.now();
    const course = (title: string, status: "draft" | "published" = "published") => insertCourseTree(school.id, { title, status, shape: [1, 1, 2] });
    const [opened, completed, idleOld, idleNew, unpublished, deleted, removed] = [
      await course("Opened"),
      await course("Completed"),
      await course("Idle old"),
      await course("Idle new"),
      await course("Unpublished", "draft"),
      await course("Deleted"),
      await course("Removed"),
    ];
    const enroll = (tree: { courseId: string }, daysAgo: number) => insertEnrollment(school.id, tree.courseId, student.id, { enrolledAt: now - daysAgo * DAY_MS, totalBlocks: 2 });
    const openedId = await enroll(opened, 9);
    await db()
      .update(schema.enrollments)
      .set({ lastAccessedAt: now - 2 * HOUR_MS, lastAccessedBlockId: opened.blockIds[1]!, blocksCompleted: 1 })
      .where(eq(schema.enrollments.id, openedId));
    const completedId = await enroll(completed, 8);
    await insertCompletion({ tenantId: school.id, courseId: completed.courseId, lessonId: completed.lessonIds[0]!, blockId: completed.blockIds[0]!, studentId: student.id, enrollmentId: completedId, at: now - HOUR_MS });
    await enroll(idleOld, 7);
    await enroll(idleNew, 3);
    await enroll(unpublished, 5);
    await enroll(deleted, 1);
    await db().update(schema.courses).set({ deletedAt: now }).where(eq(schema.courses.id, deleted.courseId));
    const removedId = await enroll(removed, 1);
    await db().update(schema.enrollments).set({ removedAt: now }).where(eq(schema.enrollments.id, removedId));
    await insertEnrollment(school.id, opened.courseId, other.id);

    const res = await as(student, "/t/me/courses");
    expect(res.status).toBe(200);
    expect(res.body.data.map((row: { course_title: string }) => row.course_title)).toEqual(["Completed", "Opened", "Idle new", "Unpublished", "Idle old"]);
    expect(res.body.data[1]).toEqual({
      course_id: opened.courseId,
      course_title: "Opened",
      course_status: "published",
      cover_image_id: null,
      enrollment_id: openedId,
      enrolled_at: new Date(now - 9 * DAY_MS).toISOString(),
      last_accessed_block_id: opened.blockIds[1],
      last_accessed_at: new Date(now - 2 * HOUR_MS).toISOString(),
      blocks_completed: 1,
      total_blocks: 2,
      pct: "50.00",
      completed_at: null,
      auth_has_access: true,
    });
    expect(res.body.data[3]).toMatchObject({ course_status: "draft", last_accessed_at: null, pct: "0.00" });

    const page = await as(student, "/t/me/courses?limit=2&offset=1");
    expect(page.body.data.map((row: { course_title: string }) => row.course_title)).toEqual(["Opened", "Idle new"]);
  });

  it("an empty list for a student without enrollments; 400 invalid_params for bad paging; 403 tenant_required without a school", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    expect((await as(student, "/t/me/courses")).body.data).toEqual([]);
    for (const query of ["limit=0", "limit=101", "offset=-1"]) {
      expect({ query, ...failure(await as(student, `/t/me/courses?${query}`)) }).toEqual({ query, status: 400, error: "invalid_params" });
    }
    expect(failure(await withoutSchool(student, "/t/me/courses"))).toEqual({ status: 403, error: "tenant_required" });
    expect(failure(await as(admin, "/t/me/courses"))).toEqual({ status: 403, error: "forbidden" });
  });
});
