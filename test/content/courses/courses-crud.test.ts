import { env } from "cloudflare:test";
import { and, eq, isNull, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCourseDeleteGuard, courseDeleteGuards, type CourseDeleteGuard } from "../../../src/content/common/course-guards";
import * as schema from "../../../src/db/schema";
import { requestWithD1 } from "../../helpers/d1-barrier";
import { storedImage } from "../../media/helpers";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { wrapD1 } from "../../helpers/wrapped-d1";
import { shardBinding, shardNames } from "../../../src/core/db/client";
import type { Env } from "../../../src/core/env";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const LINK = (id: string) => expect.stringMatching(new RegExp(`^https://api\\.lms\\.localhost/api/v1/media/${id}/download\\?exp=\\d+&sig=[0-9a-f]{64}$`));

async function courseRow(id: string) {
  const [row] = await db().select().from(schema.courses).where(eq(schema.courses.id, id));
  return row;
}

describe("POST /t/courses", () => {
  it("creates a draft after the school's other courses and answers 201 with the course", async () => {
    const { school, admin } = await schoolWithAdmin();
    await insertCourseTree(school.id, { slug: "existing" });
    const res = await as(admin, "/t/courses", { body: { title: "  Algebra I ", slug: "Algebra-1", description: "<p>Numbers <b>and</b> letters</p>" } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenant_id: school.id,
      title: "Algebra I",
      slug: "algebra-1",
      description: "<p>Numbers <b>and</b> letters</p>",
      status: "draft",
      sequential_required: false,
      position: 1,
      cover_image_id: null,
      cover_image_url: "",
      auth_has_access: false,
      created_at: ISO,
      updated_at: ISO,
      total_blocks: 0,
      total_lessons: 0,
      total_students: 0,
    });
    expect((await courseRow(res.body.data.id))?.createdBy).toBe(admin.id);
    const second = await as(admin, "/t/courses", { body: { title: "Geometry", slug: "geometry" } });
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({ position: 2, description: "" });
  });

  it("lets a curator with can_manage_courses create; others get 403 forbidden", async () => {
    const { school } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect((await as(curator, "/t/courses", { body: { title: "By curator", slug: "by-curator" } })).status).toBe(201);
    for (const member of [await signedIn(school, curatorWith({ can_manage_students: true })), await signedIn(school, { role: "student" })]) {
      const res = await as(member, "/t/courses", { body: { title: "Nope", slug: "nope" } });
      expect(failure(res)).toEqual({ status: 403, error: "forbidden" });
    }
  });

  it("answers 400 duplicate_slug for a slug a live course of the school uses; a deleted course's or another school's slug is free", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    await insertCourseTree(school.id, { slug: "taken" });
    await insertCourseTree(other.school.id, { slug: "elsewhere" });
    const gone = await insertCourseTree(school.id, { slug: "recycled" });
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, gone.courseId));

    expect(failure(await as(admin, "/t/courses", { body: { title: "Again", slug: "taken" } }))).toEqual({ status: 400, error: "duplicate_slug" });
    expect(failure(await as(admin, "/t/courses", { body: { title: "Again", slug: "TAKEN" } }))).toEqual({ status: 400, error: "duplicate_slug" });
    expect((await as(admin, "/t/courses", { body: { title: "Elsewhere", slug: "elsewhere" } })).status).toBe(201);
    expect((await as(admin, "/t/courses", { body: { title: "Recycled", slug: "recycled" } })).status).toBe(201);
  });

  it("answers 400 invalid_request_body for titles, slugs and descriptions outside the contract", async () => {
    const { admin } = await schoolWithAdmin();
    const bodies = [
      {},
      { title: "Ok title" },
      { slug: "ok-slug" },
      { title: "A", slug: "ok-slug" },
      { title: "x".repeat(256), slug: "ok-slug" },
      { title: "Ok title", slug: "a" },
      { title: "Ok title", slug: "a".repeat(121) },
      { title: "Ok title", slug: "with space" },
      { title: "Ok title", slug: "-leading" },
      { title: "Ok title", slug: "trailing-" },
      { title: "Ok title", slug: "double--hyphen" },
      { title: "Ok title", slug: "ünïcode" },
      { title: "Ok title", slug: "under_score" },
      { title: "Ok title", slug: "ok-slug", description: "x".repeat(10001) },
      { title: "Ok title", slug: "ok-slug", status: "published" },
      { title: 5, slug: "ok-slug" },
    ];
    for (const body of bodies) {
      expect({ body, ...failure(await as(admin, "/t/courses", { body })) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    expect((await as(admin, "/t/courses", { body: { title: "Ok title", slug: "a".repeat(120), description: "x".repeat(10000) } })).status).toBe(201);
  });
});

describe("GET /t/courses/:id", () => {
  it("gives staff the course with live totals", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 3], status: "draft" });
    const student = await signedIn(school, { role: "student" });
    const leaver = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const left = await insertEnrollment(school.id, tree.courseId, leaver.id);
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, left));
    // A deleted lesson and its blocks no longer count.
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, tree.lessonIds[0]!));
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.lessonId, tree.lessonIds[0]!));

    const res = await as(admin, `/t/courses/${tree.courseId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: tree.courseId,
      tenant_id: school.id,
      title: expect.any(String),
      slug: expect.any(String),
      description: "",
      status: "draft",
      sequential_required: false,
      position: 0,
      cover_image_id: null,
      cover_image_url: "",
      auth_has_access: false,
      created_at: ISO,
      updated_at: ISO,
      total_blocks: 9,
      total_lessons: 3,
      total_students: 1,
    });
  });

  it("gives an enrolled student progress, resume and the window status; a student not enrolled gets neither progress nor resume", async () => {
    const { school } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [2, 3, 2] });
    const student = await signedIn(school, { role: "student" });
    const enrollment = await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 12 });
    // The last block opened is in the second module's second lesson: lesson 4 of 6 (0-based).
    const block = tree.modules[1]!.lessons[1]!.blocks[1]!;
    const completedAt = Date.now() - 1000;
    await db()
      .update(schema.enrollments)
      .set({ lastAccessedBlockId: block, blocksCompleted: 3, completedAt })
      .where(eq(schema.enrollments.id, enrollment));

    const res = await as(student, `/t/courses/${tree.courseId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      auth_has_access: true,
      total_blocks: 12,
      total_lessons: 6,
      total_students: 1,
      progress: { blocks_completed: 3, total_blocks: 12, pct: "25.00", completed_at: new Date(completedAt).toISOString() },
      resume: { lesson_index: 4, module_id: tree.modules[1]!.id, lesson_id: tree.modules[1]!.lessons[1]!.id },
      locked: false,
      locked_reason: null,
      available_from: null,
      available_until: null,
    });

    // Lessons before it that are deleted no longer count; a deleted lesson of the block itself drops resume.
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, tree.modules[0]!.lessons[0]!.id));
    expect((await as(student, `/t/courses/${tree.courseId}`)).body.data.resume.lesson_index).toBe(3);
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, tree.modules[1]!.lessons[1]!.id));
    expect((await as(student, `/t/courses/${tree.courseId}`)).body.data).not.toHaveProperty("resume");

    const outsider = await signedIn(school, { role: "student" });
    const view = await as(outsider, `/t/courses/${tree.courseId}`);
    expect(view.status).toBe(200);
    expect(view.body.data.auth_has_access).toBe(false);
    expect(view.body.data).not.toHaveProperty("progress");
    expect(view.body.data).not.toHaveProperty("resume");
    expect(view.body.data.locked).toBe(false);
  });

  it("answers 404 course_not_found for drafts to students, and for deleted, unknown and other schools' courses to everyone", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const draft = await insertCourseTree(school.id, { status: "draft" });
    await insertEnrollment(school.id, draft.courseId, student.id);
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree(other.school.id);

    expect(failure(await as(student, `/t/courses/${draft.courseId}`))).toEqual({ status: 404, error: "course_not_found" });
    expect((await as(admin, `/t/courses/${draft.courseId}`)).status).toBe(200);
    for (const id of [deleted.courseId, foreign.courseId, unknownId()]) {
      for (const member of [admin, student]) expect(failure(await as(member, `/t/courses/${id}`))).toEqual({ status: 404, error: "course_not_found" });
    }
    expect(failure(await as(admin, "/t/courses/not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("PATCH /t/courses/:id", () => {
  it("changes the given fields and answers the course", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    const res = await as(admin, `/t/courses/${tree.courseId}`, {
      method: "PATCH",
      body: { title: "Renamed", slug: "renamed", description: "<p onclick=\"x()\">Hi</p>", sequential_required: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: tree.courseId, title: "Renamed", slug: "renamed", description: "<p>Hi</p>", sequential_required: true, status: "published", total_blocks: 2 });
    const partial = await as(admin, `/t/courses/${tree.courseId}`, { method: "PATCH", body: { title: "Only title" } });
    expect(partial.body.data).toMatchObject({ title: "Only title", slug: "renamed", sequential_required: true });
    const empty = await as(admin, `/t/courses/${tree.courseId}`, { method: "PATCH", body: {} });
    expect(empty.body.data).toMatchObject({ title: "Only title" });
    // Its own slug again is no conflict.
    expect((await as(admin, `/t/courses/${tree.courseId}`, { method: "PATCH", body: { slug: "renamed" } })).status).toBe(200);
  });

  it("answers duplicate_slug, course_not_found and invalid_request_body", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    await insertCourseTree(school.id, { slug: "taken" });
    const foreign = await insertCourseTree(other.school.id);
    expect(failure(await as(admin, `/t/courses/${tree.courseId}`, { method: "PATCH", body: { slug: "taken" } }))).toEqual({ status: 400, error: "duplicate_slug" });
    for (const id of [foreign.courseId, unknownId()]) {
      expect(failure(await as(admin, `/t/courses/${id}`, { method: "PATCH", body: { title: "New title" } }))).toEqual({ status: 404, error: "course_not_found" });
    }
    for (const body of [{ title: "x" }, { slug: "Bad Slug" }, { sequential_required: "yes" }, { status: "draft" }]) {
      expect(failure(await as(admin, `/t/courses/${tree.courseId}`, { method: "PATCH", body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
  });
});

describe("DELETE /t/courses/:id", () => {
  it("soft-deletes the course with its live modules, lessons and blocks at one instant, and answers 204", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 2] });
    const earlier = 1000;
    await db().update(schema.blocks).set({ deletedAt: earlier }).where(eq(schema.blocks.id, tree.blockIds[0]!));
    const res = await as(admin, `/t/courses/${tree.courseId}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    const stamp = (await courseRow(tree.courseId))!.deletedAt;
    expect(stamp).toEqual(expect.any(Number));
    const modules = await db().select().from(schema.courseModules).where(eq(schema.courseModules.courseId, tree.courseId));
    const lessons = await db().select().from(schema.lessons).where(eq(schema.lessons.courseId, tree.courseId));
    const blocks = await db().select().from(schema.blocks).where(eq(schema.blocks.courseId, tree.courseId));
    expect(new Set([...modules, ...lessons].map((row) => row.deletedAt))).toEqual(new Set([stamp]));
    expect(blocks.map((row) => row.deletedAt).sort()).toEqual([earlier, ...Array(7).fill(stamp)]);
    // Gone for every reader and writer; the slug is free again.
    expect(failure(await as(admin, `/t/courses/${tree.courseId}`))).toEqual({ status: 404, error: "course_not_found" });
    expect(failure(await as(admin, `/t/courses/${tree.courseId}`, { method: "DELETE" }))).toEqual({ status: 404, error: "course_not_found" });
  });

  it("answers 404 course_not_found for another school's or an unknown course, and 400 invalid_id_format for a malformed id", async () => {
    const { admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const foreign = await insertCourseTree(other.school.id);
    for (const id of [foreign.courseId, unknownId()]) {
      expect(failure(await as(admin, `/t/courses/${id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "course_not_found" });
    }
    expect((await courseRow(foreign.courseId))!.deletedAt).toBeNull();
    expect(failure(await as(admin, "/t/courses/123", { method: "DELETE" }))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("POST /t/courses/:id/publish and /unpublish", () => {
  it("switch the status idempotently and answer {status}", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { status: "draft" });
    const publish = () => as(admin, `/t/courses/${tree.courseId}/publish`, { method: "POST" });
    const unpublish = () => as(admin, `/t/courses/${tree.courseId}/unpublish`, { method: "POST" });
    expect((await publish()).body).toEqual({ success: true, data: { status: "published" } });
    const stamp = (await courseRow(tree.courseId))!.updatedAt;
    expect((await publish()).body).toEqual({ success: true, data: { status: "published" } });
    expect((await courseRow(tree.courseId))!.updatedAt).toBe(stamp);
    expect((await unpublish()).body).toEqual({ success: true, data: { status: "draft" } });
    expect((await unpublish()).body).toEqual({ success: true, data: { status: "draft" } });
    expect((await courseRow(tree.courseId))!.status).toBe("draft");
  });

  it("answer 404 course_not_found for deleted, foreign and unknown courses", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const deleted = await insertCourseTree(school.id, { status: "draft" });
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree(other.school.id, { status: "draft" });
    for (const id of [deleted.courseId, foreign.courseId, unknownId()]) {
      for (const action of ["publish", "unpublish"]) {
        expect(failure(await as(admin, `/t/courses/${id}/${action}`, { method: "POST" }))).toEqual({ status: 404, error: "course_not_found" });
      }
    }
    expect((await courseRow(foreign.courseId))!.status).toBe("draft");
  });
});

describe("POST /t/courses/bulk-publish and /bulk-unpublish", () => {
  it("change the listed live courses of the school in one go; already-set, deleted, foreign and unknown ids are skipped", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const [a, b, published] = [
      await insertCourseTree(school.id, { status: "draft" }),
      await insertCourseTree(school.id, { status: "draft" }),
      await insertCourseTree(school.id, { status: "published" }),
    ];
    const deleted = await insertCourseTree(school.id, { status: "draft" });
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree(other.school.id, { status: "draft" });
    const unknown = unknownId();

    const ids = [a.courseId, published.courseId, deleted.courseId, foreign.courseId, b.courseId, unknown, a.courseId.toUpperCase()];
    const res = await as(admin, "/t/courses/bulk-publish", { body: { ids } });
    expect(res.body).toEqual({ success: true, data: { affected: 2, skipped: [published.courseId, deleted.courseId, foreign.courseId, unknown] } });
    expect((await courseRow(a.courseId))!.status).toBe("published");
    expect((await courseRow(b.courseId))!.status).toBe("published");
    expect((await courseRow(deleted.courseId))!.status).toBe("draft");
    expect((await courseRow(foreign.courseId))!.status).toBe("draft");

    const again = await as(admin, "/t/courses/bulk-unpublish", { body: { ids: [a.courseId, b.courseId, foreign.courseId] } });
    expect(again.body).toEqual({ success: true, data: { affected: 2, skipped: [foreign.courseId] } });
    const repeat = await as(admin, "/t/courses/bulk-unpublish", { body: { ids: [a.courseId] } });
    expect(repeat.body).toEqual({ success: true, data: { affected: 0, skipped: [a.courseId] } });
  });

  it("answer 400 invalid_params for a body outside 1-100 uuids", async () => {
    const { admin } = await schoolWithAdmin();
    const many = Array.from({ length: 101 }, () => unknownId());
    for (const path of ["/t/courses/bulk-publish", "/t/courses/bulk-unpublish"]) {
      for (const body of [{}, { ids: [] }, { ids: many }, { ids: ["nope"] }, { ids: "x" }, { ids: [unknownId()], extra: 1 }]) {
        expect({ path, body, ...failure(await as(admin, path, { body })) }).toEqual({ path, body, status: 400, error: "invalid_params" });
      }
    }
    expect((await as(admin, "/t/courses/bulk-publish", { body: { ids: many.slice(0, 100) } })).body.data).toMatchObject({ affected: 0 });
  });
});

describe("PATCH /t/courses/:id/cover-image", () => {
  it("sets a confirmed image of the school as the cover; reads give a fresh link", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const image = await storedImage(school.id);
    const res = await as(admin, `/t/courses/${tree.courseId}/cover-image`, { method: "PATCH", body: { cover_image_id: image.toUpperCase() } });
    expect(res.body).toEqual({ success: true, data: { cover_image_id: image } });
    expect((await as(admin, `/t/courses/${tree.courseId}`)).body.data).toMatchObject({ cover_image_id: image, cover_image_url: LINK(image) });
  });

  it("answers invalid_cover_image, invalid_request_body and course_not_found", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const refused = [
      await storedImage(school.id, { status: "pending" }),
      await storedImage(school.id, { kind: "pdf" }),
      await storedImage(other.school.id),
      unknownId(),
    ];
    for (const id of refused) {
      expect(failure(await as(admin, `/t/courses/${tree.courseId}/cover-image`, { method: "PATCH", body: { cover_image_id: id } }))).toEqual({
        status: 400,
        error: "invalid_cover_image",
      });
    }
    for (const body of [{}, { cover_image_id: null }, { cover_image_id: "https://example.com/a.png" }]) {
      expect(failure(await as(admin, `/t/courses/${tree.courseId}/cover-image`, { method: "PATCH", body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    const image = await storedImage(school.id);
    const foreign = await insertCourseTree(other.school.id);
    for (const id of [foreign.courseId, unknownId()]) {
      expect(failure(await as(admin, `/t/courses/${id}/cover-image`, { method: "PATCH", body: { cover_image_id: image } }))).toEqual({ status: 404, error: "course_not_found" });
    }
    expect(await db().select({ coverImageId: schema.courses.coverImageId }).from(schema.courses).where(eq(schema.courses.id, tree.courseId))).toEqual([{ coverImageId: null }]);
  });
});

describe("DELETE /t/courses/:id with a registered delete guard", () => {
  /** A stand-in for the areas that hold courses (paths, group enrollments): a course listed in a test table. */
  const HELD = { status: 409, code: "test_course_held", message: "Held by a test." } as const;

  const guard: CourseDeleteGuard = { failure: HELD, holds: (_tenantId, courseId) => sql`EXISTS (SELECT 1 FROM test_course_holds h WHERE h.course_id = ${courseId})` };

  beforeAll(async () => {
    // On every school database: the guard's statement runs on the shard of the school under test.
    for (const shard of shardNames(env as Env)) await shardBinding(env as Env, shard).exec("CREATE TABLE IF NOT EXISTS test_course_holds (course_id TEXT NOT NULL)");
    addCourseDeleteGuard(guard);
  });

  // The registry is module state: other files' deletes must not meet a guard over a table only this file creates.
  afterAll(() => {
    const registered = courseDeleteGuards() as CourseDeleteGuard[];
    registered.splice(registered.indexOf(guard), 1);
  });

  it("refuses while the guard holds the course, deletes once it lets go", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    await (await schoolD1(school.id)).prepare("INSERT INTO test_course_holds (course_id) VALUES (?)").bind(tree.courseId).run();
    const refused = await as(admin, `/t/courses/${tree.courseId}`, { method: "DELETE" });
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 409, error: "test_course_held" });
    expect((await courseRow(tree.courseId))!.deletedAt).toBeNull();
    await (await schoolD1(school.id)).prepare("DELETE FROM test_course_holds WHERE course_id = ?").bind(tree.courseId).run();
    expect((await as(admin, `/t/courses/${tree.courseId}`, { method: "DELETE" })).status).toBe(204);
  });

  it("repeats the guard as the condition of the delete: a hold made after the check still wins", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    // The hold lands between the request's check and its delete batch.
    const shard = await schoolD1(school.id);
    const sneaky = wrapD1(shard, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property === "batch") {
          return async (statements: D1PreparedStatement[]) => {
            await target.prepare("INSERT INTO test_course_holds (course_id) VALUES (?)").bind(tree.courseId).run();
            return target.batch(statements);
          };
        }
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const res = await requestWithD1(sneaky, `/t/courses/${tree.courseId}`, { method: "DELETE", token: admin.token, tenant: admin.subdomain });
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 409, error: "test_course_held" });
    expect((await courseRow(tree.courseId))!.deletedAt).toBeNull();
    const blocks = await db().select().from(schema.blocks).where(and(eq(schema.blocks.courseId, tree.courseId), isNull(schema.blocks.deletedAt)));
    expect(blocks).toHaveLength(2);
  });
});
