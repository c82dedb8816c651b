import { describe, expect, it } from "vitest";
import { insertCourseTree, ISO } from "../../helpers/courses";
import { failure } from "../../helpers/http";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { insertPath } from "./helpers";

/** Learning paths as records: list, read, create, edit, delete, publish and unpublish. */

describe("POST, PATCH, DELETE /t/learning-paths", () => {
  it("creates a draft without courses (201), edits title and description, deletes softly", async () => {
    const { admin } = await schoolWithAdmin();
    const created = await as(admin, "/t/learning-paths", { body: { title: "  Frontend  ", description: "From HTML to React" } });
    expect(created.status).toBe(201);
    const path = created.body.data;
    expect(path).toEqual({
      id: expect.any(String),
      title: "Frontend",
      description: "From HTML to React",
      status: "draft",
      created_by: admin.id,
      course_count: 0,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      courses: [],
    });
    const edited = await as(admin, `/t/learning-paths/${path.id}`, { method: "PATCH", body: { title: "Frontend developer" } });
    expect(edited.body.data).toMatchObject({ title: "Frontend developer", description: "From HTML to React", status: "draft" });
    expect((await as(admin, `/t/learning-paths/${path.id}`, { method: "PATCH", body: {} })).body.data.title).toBe("Frontend developer");
    expect((await as(admin, `/t/learning-paths/${path.id}`, { method: "DELETE" })).body.data).toEqual({ deleted: true });
    expect(failure(await as(admin, `/t/learning-paths/${path.id}`))).toEqual({ status: 404, error: "path_not_found" });
    expect(failure(await as(admin, `/t/learning-paths/${path.id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "path_not_found" });
    expect(failure(await as(admin, `/t/learning-paths/${path.id}`, { method: "PATCH", body: { title: "Again" } }))).toEqual({ status: 404, error: "path_not_found" });
  });

  it("400 invalid_request_body for a missing or too long title, a long description or an unknown key", async () => {
    const { admin } = await schoolWithAdmin();
    for (const body of [{}, { title: "" }, { title: "x".repeat(256) }, { title: "Ok", description: "x".repeat(4001) }, { title: "Ok", status: "published" }]) {
      expect(failure(await as(admin, "/t/learning-paths", { body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    expect((await as(admin, "/t/learning-paths", { body: { title: "x".repeat(255), description: "y".repeat(4000) } })).status).toBe(201);
  });

  it("403 permission_denied for students and curators without manage_courses; a curator with it writes", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const curator = await signedIn(school, curatorWith({}));
    const manager = await signedIn(school, curatorWith({ can_manage_courses: true }));
    const pathId = await insertPath(school.id, { status: "draft" });
    for (const who of [student, curator]) {
      expect(failure(await as(who, "/t/learning-paths", { body: { title: "Mine" } }))).toEqual({ status: 403, error: "permission_denied" });
      expect(failure(await as(who, `/t/learning-paths/${pathId}`, { method: "PATCH", body: { title: "Mine" } }))).toEqual({ status: 403, error: "permission_denied" });
      expect(failure(await as(who, `/t/learning-paths/${pathId}`, { method: "DELETE" }))).toEqual({ status: 403, error: "permission_denied" });
      expect(failure(await as(who, `/t/learning-paths/${pathId}/publish`, { method: "POST" }))).toEqual({ status: 403, error: "permission_denied" });
      expect(failure(await as(who, `/t/learning-paths/${pathId}/unpublish`, { method: "POST" }))).toEqual({ status: 403, error: "permission_denied" });
      expect(failure(await as(who, `/t/learning-paths/${pathId}/courses`, { method: "PATCH", body: { course_ids: [] } }))).toEqual({ status: 403, error: "permission_denied" });
      expect(failure(await as(who, `/t/learning-paths/${pathId}/reorder-courses`, { method: "PATCH", body: { course_ids: [unknownId()] } }))).toEqual({
        status: 403,
        error: "permission_denied",
      });
      expect(failure(await as(who, `/t/learning-paths/${pathId}/students`))).toEqual({ status: 403, error: "permission_denied" });
    }
    expect((await as(manager, "/t/learning-paths", { body: { title: "Curated" } })).status).toBe(201);
  });

  it("another school's path is path_not_found to every verb", async () => {
    const { admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const foreign = await insertPath(other.school.id, { courseIds: [(await insertCourseTree(other.school.id)).courseId] });
    expect(failure(await as(admin, `/t/learning-paths/${foreign}`))).toEqual({ status: 404, error: "path_not_found" });
    expect(failure(await as(admin, `/t/learning-paths/${foreign}`, { method: "PATCH", body: { title: "Mine" } }))).toEqual({ status: 404, error: "path_not_found" });
    expect(failure(await as(admin, `/t/learning-paths/${foreign}`, { method: "DELETE" }))).toEqual({ status: 404, error: "path_not_found" });
    expect(failure(await as(admin, `/t/learning-paths/${foreign}/publish`, { method: "POST" }))).toEqual({ status: 404, error: "path_not_found" });
    expect(failure(await as(admin, `/t/learning-paths/${foreign}/unpublish`, { method: "POST" }))).toEqual({ status: 404, error: "path_not_found" });
    expect(failure(await as(admin, `/t/learning-paths/${foreign}/courses`, { method: "PATCH", body: { course_ids: [] } }))).toEqual({ status: 404, error: "path_not_found" });
    expect(failure(await as(admin, `/t/learning-paths/${foreign}/students`))).toEqual({ status: 404, error: "path_not_found" });
    const reorder = await as(admin, `/t/learning-paths/${foreign}/reorder-courses`, { method: "PATCH", body: { course_ids: [unknownId()] } });
    expect(failure(reorder)).toEqual({ status: 404, error: "path_not_found" });
    expect(failure(await as(admin, "/t/learning-paths/not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await as(admin, "/t/learning-paths/not-a-uuid/students"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("POST /t/learning-paths/:id/publish and /unpublish", () => {
  it("409 path_publish_empty without a live course; publishes once it has one; both are idempotent", async () => {
    const { school, admin } = await schoolWithAdmin();
    const deleted = await insertCourseTree(school.id);
    const pathId = await insertPath(school.id, { status: "draft" });
    expect(failure(await as(admin, `/t/learning-paths/${pathId}/publish`, { method: "POST" }))).toEqual({ status: 409, error: "path_publish_empty" });
    await as(admin, `/t/learning-paths/${pathId}/courses`, { method: "PATCH", body: { course_ids: [deleted.courseId] } });
    await as(admin, `/t/courses/${deleted.courseId}`, { method: "DELETE" });
    expect(failure(await as(admin, `/t/learning-paths/${pathId}/publish`, { method: "POST" }))).toEqual({ status: 409, error: "path_publish_empty" });

    const draftCourse = await insertCourseTree(school.id, { status: "draft" });
    await as(admin, `/t/learning-paths/${pathId}/courses`, { method: "PATCH", body: { course_ids: [draftCourse.courseId] } });
    for (let i = 0; i < 2; i++) expect((await as(admin, `/t/learning-paths/${pathId}/publish`, { method: "POST" })).body.data).toEqual({ published: true });
    expect((await as(admin, `/t/learning-paths/${pathId}`)).body.data.status).toBe("published");
    for (let i = 0; i < 2; i++) expect((await as(admin, `/t/learning-paths/${pathId}/unpublish`, { method: "POST" })).body.data).toEqual({ unpublished: true });
    expect((await as(admin, `/t/learning-paths/${pathId}`)).body.data.status).toBe("draft");
  });
});

describe("GET /t/learning-paths and /t/learning-paths/:id", () => {
  it("staff see every live path, newest first, filtered by q and status, paged; students see published ones", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const published = await insertCourseTree(school.id, { title: "Published course" });
    const draft = await insertCourseTree(school.id, { title: "Draft course", status: "draft" });
    const first = await insertPath(school.id, { title: "Backend 100%", courseIds: [published.courseId, draft.courseId] });
    const second = await insertPath(school.id, { title: "Frontend", status: "draft", courseIds: [draft.courseId] });
    await insertPath(school.id, { title: "Gone", deleted: true });
    await insertPath((await schoolWithAdmin()).school.id, { title: "Elsewhere" });

    const all = (await as(admin, "/t/learning-paths")).body.data;
    expect(all).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(all.paths.map((path: { id: string }) => path.id)).toEqual([second, first]);
    expect(all.paths[1]).toEqual({
      id: first,
      title: "Backend 100%",
      description: "",
      status: "published",
      created_by: null,
      course_count: 2,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const ids = async (query: string, who = admin) => ((await as(who, `/t/learning-paths${query}`)).body.data.paths as { id: string }[]).map((path) => path.id);
    expect(await ids("?status=draft")).toEqual([second]);
    expect(await ids("?status=published")).toEqual([first]);
    expect(await ids("?q=100%25")).toEqual([first]);
    expect(await ids("?q=end")).toEqual([second, first]);
    expect(await ids("?limit=1&offset=1")).toEqual([first]);
    expect(await ids("?status=")).toEqual([second, first]);

    const mine = (await as(student, "/t/learning-paths")).body.data;
    expect(mine.total).toBe(1);
    expect(mine.paths).toMatchObject([{ id: first, course_count: 1 }]);
    expect(await ids("?status=draft", student)).toEqual([]);
  });

  it("400 invalid_status_filter for another status, invalid_params for a bad limit or offset", async () => {
    const { admin } = await schoolWithAdmin();
    expect(failure(await as(admin, "/t/learning-paths?status=archived"))).toEqual({ status: 400, error: "invalid_status_filter" });
    for (const query of ["limit=0", "limit=201", "offset=-1", "limit=abc"]) {
      expect(failure(await as(admin, `/t/learning-paths?${query}`))).toEqual({ status: 400, error: "invalid_params" });
    }
  });

  it("the detail lists the courses in order; students see a published path with its published courses, a draft path is path_not_found", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const a = await insertCourseTree(school.id, { title: "A" });
    const b = await insertCourseTree(school.id, { title: "B", status: "draft" });
    const c = await insertCourseTree(school.id, { title: "C" });
    const pathId = await insertPath(school.id, { courseIds: [c.courseId, b.courseId, a.courseId] });
    const detail = (await as(admin, `/t/learning-paths/${pathId}`)).body.data;
    expect(detail.courses).toEqual([
      { course_id: c.courseId, position: 0, title: "C" },
      { course_id: b.courseId, position: 1, title: "B" },
      { course_id: a.courseId, position: 2, title: "A" },
    ]);
    expect(detail.course_count).toBe(3);
    const seen = (await as(student, `/t/learning-paths/${pathId}`)).body.data;
    expect(seen.courses.map((course: { title: string }) => course.title)).toEqual(["C", "A"]);
    expect(seen.course_count).toBe(2);
    const draft = await insertPath(school.id, { status: "draft" });
    expect(failure(await as(student, `/t/learning-paths/${draft}`))).toEqual({ status: 404, error: "path_not_found" });
    expect((await as(admin, `/t/learning-paths/${draft}`)).status).toBe(200);
  });
});
