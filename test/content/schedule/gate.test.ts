import { describe, expect, it } from "vitest";
import type { Actor, SchoolCtx } from "../../../src/core/http/context";
import { ApiError } from "../../../src/core/http/errors";
import { scheduleGate } from "../../../src/content/schedule/availability";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { addMember, createGroup, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { days, putGroupWindow, putWindow } from "./helpers";
import { schoolCtx } from "../../helpers/school-ctx";

/** A school context for the caller, as the guard builds one (only what the gate reads is real). */
async function ctxFor(tenantId: string, actor: { userId: string; role: Actor["role"] }): Promise<SchoolCtx> {
  const ctx = await schoolCtx<Actor>(tenantId, { actor: "member" });
  return { ...ctx, actor: { ...ctx.actor, ...actor } };
}

async function outcome(ctx: SchoolCtx, lessonId: string, firstAttempt: boolean) {
  try {
    await scheduleGate(ctx, { lessonId, firstAttempt });
    return "open";
  } catch (err) {
    if (err instanceof ApiError) return `${err.status} ${err.code}`;
    throw err;
  }
}

describe("scheduleGate: the first-attempt rule", () => {
  it("a start to come closes every attempt; a passed end closes only a first attempt; allow_* and staff pass", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 1] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const [ended, upcoming] = tree.lessonIds;
    const moduleId = tree.modules[0]!.id;
    const ctx = await ctxFor(school.id, { userId: student.id, role: "student" });

    expect(await outcome(ctx, ended!, true)).toBe("open");
    await putWindow(admin, "modules", moduleId, { starts_at: days(-10) });
    await putWindow(admin, "lessons", ended!, { ends_at: days(-1) });
    await putWindow(admin, "lessons", upcoming!, { starts_at: days(1) });
    expect(await outcome(ctx, ended!, true)).toBe("403 schedule_window_closed");
    expect(await outcome(ctx, ended!, false)).toBe("open");
    expect(await outcome(ctx, upcoming!, true)).toBe("403 schedule_window_closed");
    expect(await outcome(ctx, upcoming!, false)).toBe("403 schedule_window_closed");

    // Allowed sides open.
    await putWindow(admin, "lessons", ended!, { ends_at: days(-1), allow_after_end: true });
    await putWindow(admin, "lessons", upcoming!, { starts_at: days(1), allow_before_start: true });
    expect(await outcome(ctx, ended!, true)).toBe("open");
    expect(await outcome(ctx, upcoming!, true)).toBe("open");

    // Nested: the course's start to come closes the lesson too.
    await putWindow(admin, "courses", tree.courseId, { starts_at: days(2) });
    expect(await outcome(ctx, ended!, false)).toBe("403 schedule_window_closed");

    // Staff bypass; an unknown lesson is left to the caller's own lookup.
    for (const role of ["admin", "curator"] as const) expect(await outcome(await ctxFor(school.id, { userId: admin.id, role }), ended!, true)).toBe("open");
    expect(await outcome(ctx, unknownId(), true)).toBe("open");
  });

  it("reads the student's effective grid: a group grid without the default's windows opens the lesson", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id);
    await insertEnrollment(school.id, tree.courseId, student.id);
    const ctx = await ctxFor(school.id, { userId: student.id, role: "student" });
    await putWindow(admin, "courses", tree.courseId, { ends_at: days(-1) });
    expect(await outcome(ctx, tree.lessonIds[0]!, true)).toBe("403 schedule_window_closed");
    const group = await createGroup(school.id);
    await addMember(group, student.id);
    await putGroupWindow(admin, group.id, { course_id: tree.courseId, level: "course" }, { ends_at: days(5) });
    expect(await outcome(ctx, tree.lessonIds[0]!, true)).toBe("open");
  });
});
