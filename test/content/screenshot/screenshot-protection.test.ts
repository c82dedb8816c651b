import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { DAY_MS } from "../../../src/core/lib/clock";
import { uuidv7 } from "../../../src/core/lib/ids";
import { insertCourseTree } from "../../helpers/courses";
import { createSchool, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";

const PATH = "/t/tenant/screenshot-protection";
const OLD = Date.parse("2030-01-01T00:00:00Z");

const get = (member: Member) => as(member, PATH);
const patch = (member: Member, body: unknown) => as(member, PATH, { method: "PATCH", body });

/** Rows of each type, some blocking screenshots, some deleted, all last updated at `OLD`. */
async function content(tenantId: string, counts: { live: number; blocked: number; deleted: number }) {
  const flags = [
    ...Array.from({ length: counts.live - counts.blocked }, () => ({ blocked: false, deleted: false })),
    ...Array.from({ length: counts.blocked }, () => ({ blocked: true, deleted: false })),
    ...Array.from({ length: counts.deleted }, (_, i) => ({ blocked: i % 2 === 0, deleted: true })),
  ];
  const tree = await insertCourseTree(tenantId, { shape: [1, flags.length, 0] });
  for (const [i, flag] of flags.entries()) {
    const common = { tenantId, screenshotProtectionEnabled: flag.blocked, createdAt: OLD, updatedAt: OLD, deletedAt: flag.deleted ? OLD : null };
    await db().update(schema.lessons).set(common).where(eq(schema.lessons.id, tree.lessonIds[i]!));
    await db().insert(schema.quizzes).values({ id: uuidv7(), title: `Quiz ${i}`, ...common });
    await db().insert(schema.assignments).values({ id: uuidv7(), title: `Assignment ${i}`, ...common });
    await db().insert(schema.exams).values({ id: uuidv7(), title: `Exam ${i}`, timeLimitSeconds: 600, ...common });
  }
}

const counts = (total: number, blocked: number) => ({ total, screenshots_allowed: total - blocked, screenshots_blocked: blocked });

describe("GET /t/tenant/screenshot-protection", () => {
  it("counts the school's live objects per type; deleted rows and other schools are left out", async () => {
    const { school, admin } = await schoolWithAdmin();
    await content(school.id, { live: 3, blocked: 1, deleted: 2 });
    const other = await createSchool();
    await content(other.id, { live: 4, blocked: 4, deleted: 0 });

    const res = await get(admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ lessons: counts(3, 1), quizzes: counts(3, 1), assignments: counts(3, 1), exams: counts(3, 1) });
  });

  it("answers zeros for a school without content", async () => {
    const { admin } = await schoolWithAdmin();
    const res = await get(admin);
    expect(res.body.data).toEqual({ lessons: counts(0, 0), quizzes: counts(0, 0), assignments: counts(0, 0), exams: counts(0, 0) });
  });
});

describe("PATCH /t/tenant/screenshot-protection", () => {
  it("switches the live rows of one type whose flag differs, counts them, and leaves updated_at alone", async () => {
    const { school, admin } = await schoolWithAdmin();
    await content(school.id, { live: 3, blocked: 1, deleted: 2 });
    const other = await createSchool();
    await content(other.id, { live: 2, blocked: 0, deleted: 0 });

    const res = await patch(admin, { content_type: "quizzes", enabled: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      content_type: "quizzes",
      screenshot_protection_enabled: true,
      updated_count: 2,
      settings: { lessons: counts(3, 1), quizzes: counts(3, 3), assignments: counts(3, 1), exams: counts(3, 1) },
    });
    const quizzes = await db().select().from(schema.quizzes).where(eq(schema.quizzes.tenantId, school.id));
    expect(quizzes.map((quiz) => quiz.updatedAt)).toEqual(Array(quizzes.length).fill(OLD));
    expect(quizzes).toHaveLength(5);
    // Deleted rows keep their flag (one of each), and the other school is untouched.
    expect(quizzes.filter((quiz) => quiz.deletedAt !== null).map((quiz) => quiz.screenshotProtectionEnabled).sort()).toEqual([false, true]);
    const foreign = await db().select().from(schema.quizzes).where(and(eq(schema.quizzes.tenantId, other.id), eq(schema.quizzes.screenshotProtectionEnabled, true)));
    expect(foreign).toEqual([]);

    const again = await patch(admin, { content_type: "quizzes", enabled: true });
    expect(again.body.data).toMatchObject({ updated_count: 0, settings: { quizzes: counts(3, 3) } });

    const off = await patch(admin, { content_type: "lessons", enabled: false });
    expect(off.body.data).toMatchObject({ content_type: "lessons", screenshot_protection_enabled: false, updated_count: 1, settings: { lessons: counts(3, 0) } });
    const lessons = await db().select().from(schema.lessons).where(eq(schema.lessons.tenantId, school.id));
    expect(lessons.map((lesson) => lesson.updatedAt)).toEqual(Array(lessons.length).fill(OLD));
    expect(lessons).toHaveLength(5);

    for (const type of ["assignments", "exams"]) {
      const switched = await patch(admin, { content_type: type, enabled: true });
      expect(switched.body.data).toMatchObject({ updated_count: 2, settings: { [type]: counts(3, 3) } });
    }
  });

  it("refuses bad bodies with 400 validation error", async () => {
    const { admin } = await schoolWithAdmin();
    for (const body of [{}, { content_type: "courses", enabled: true }, { content_type: "lessons" }, { content_type: "lessons", enabled: "yes" }, { enabled: true }, { content_type: "lessons", enabled: true, extra: 1 }]) {
      expect(failure(await patch(admin, body)), JSON.stringify(body)).toEqual({ status: 400, error: "validation error" });
    }
    const raw = await as(admin, PATH, { method: "PATCH", raw: "{not json" });
    expect(failure(raw)).toEqual({ status: 400, error: "validation error" });
  });
});

describe("screenshot protection: who may call", () => {
  it("is 403 forbidden for a curator (whatever the flags) and a student", async () => {
    const { school } = await schoolWithAdmin();
    const curator = await signedIn(school, { role: "curator", permissions: { can_manage_courses: true, can_manage_students: true } });
    const student = await signedIn(school, { role: "student" });
    for (const member of [curator, student]) {
      expect(failure(await get(member))).toEqual({ status: 403, error: "forbidden" });
      expect(failure(await patch(member, { content_type: "lessons", enabled: true }))).toEqual({ status: 403, error: "forbidden" });
    }
  });

  it("is 403 PAYMENT_REQUIRED while the school's billing gate is closed", async () => {
    for (const options of [{ planState: "suspended" as const, suspendedManually: true }, { planState: "trial" as const, expiresAt: Date.now() - DAY_MS }]) {
      const school = await createSchool(options);
      const admin = await signedIn(school, { role: "admin" });
      expect(failure(await get(admin))).toEqual({ status: 403, error: "PAYMENT_REQUIRED" });
      expect(failure(await patch(admin, { content_type: "lessons", enabled: true }))).toEqual({ status: 403, error: "PAYMENT_REQUIRED" });
    }
  });
});
