import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";

async function list(member: Member, query = "") {
  const res = await as(member, `/t/courses${query}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

const titles = (data: { courses: { title: string }[] }) => data.courses.map((course) => course.title);

async function setPosition(courseId: string, position: number) {
  await db().update(schema.courses).set({ position }).where(eq(schema.courses.id, courseId));
}

/** A school with three published courses (Alpha, Beta, Gamma) and two drafts (Delta, Epsilon), in that order, plus a deleted one. */
async function catalogue() {
  const { school, admin } = await schoolWithAdmin();
  const courses: Record<string, string> = {};
  const specs = [
    ["Alpha", "published", "Numbers"],
    ["Beta", "published", "Letters"],
    ["Gamma", "published", "numbers and letters"],
    ["Delta", "draft", "Shapes"],
    ["Epsilon", "draft", "More numbers"],
  ] as const;
  for (const [i, [title, status, description]] of specs.entries()) {
    const tree = await insertCourseTree(school.id, { title, status, shape: [1, 1, i + 1] });
    await db().update(schema.courses).set({ description: `<p>${description}</p>`, position: i }).where(eq(schema.courses.id, tree.courseId));
    courses[title] = tree.courseId;
  }
  const deleted = await insertCourseTree(school.id, { title: "Deleted", status: "published" });
  await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
  return { school, admin, courses };
}

describe("GET /t/courses", () => {
  it("lists staff every live course in position order with counts and row aggregates", async () => {
    const { school, admin, courses } = await catalogue();
    const students = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    const done = await insertEnrollment(school.id, courses.Alpha!, students[0]!.id);
    await db().update(schema.enrollments).set({ completedAt: Date.now() }).where(eq(schema.enrollments.id, done));
    await insertEnrollment(school.id, courses.Alpha!, students[1]!.id);
    await insertEnrollment(school.id, courses.Alpha!, students[2]!.id);
    const removed = await insertEnrollment(school.id, courses.Beta!, students[0]!.id);
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, removed));

    const data = await list(admin);
    expect(titles(data)).toEqual(["Alpha", "Beta", "Gamma", "Delta", "Epsilon"]);
    expect(data.counts).toEqual({ all: 5, published: 3, draft: 2 });
    expect(data).toMatchObject({ total: 5, page: 1, limit: 20 });
    expect(data.courses[0]).toEqual({
      id: courses.Alpha,
      tenant_id: school.id,
      title: "Alpha",
      slug: expect.any(String),
      description: "<p>Numbers</p>",
      status: "published",
      sequential_required: false,
      position: 0,
      cover_image_id: null,
      cover_image_url: "",
      auth_has_access: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      students_count: 3,
      completion_rate: 33,
      total_blocks: 1,
    });
    expect(data.courses.map((c: { students_count: number; completion_rate: number; total_blocks: number }) => [c.students_count, c.completion_rate, c.total_blocks])).toEqual([
      [3, 33, 1],
      [0, 0, 2],
      [0, 0, 3],
      [0, 0, 4],
      [0, 0, 5],
    ]);
  });

  it("completion_rate is an integer percent of the active enrollments, rounded half up: 2 of 3 give 67, 1 of 8 give 13", async () => {
    const { school, admin, courses } = await catalogue();
    const enrol = async (courseId: string, completed: boolean) => {
      const id = await insertEnrollment(school.id, courseId, (await createUser(school.id, { role: "student" })).id);
      if (completed) await db().update(schema.enrollments).set({ completedAt: Date.now() }).where(eq(schema.enrollments.id, id));
    };
    for (const completed of [true, true, false]) await enrol(courses.Alpha!, completed);
    for (const completed of [true, false, false, false, false, false, false, false]) await enrol(courses.Beta!, completed);
    const data = await list(admin);
    expect(data.courses.map((c: { title: string; students_count: number; completion_rate: number }) => [c.title, c.students_count, c.completion_rate])).toEqual([
      ["Alpha", 3, 67],
      ["Beta", 8, 13],
      ["Gamma", 0, 0],
      ["Delta", 0, 0],
      ["Epsilon", 0, 0],
    ]);
  });

  it("filters by status (other values ignored) and q over title and description; counts follow q but not status", async () => {
    const { admin } = await catalogue();
    const drafts = await list(admin, "?status=draft");
    expect(titles(drafts)).toEqual(["Delta", "Epsilon"]);
    expect(drafts.counts).toEqual({ all: 5, published: 3, draft: 2 });
    expect(drafts.total).toBe(2);
    expect(titles(await list(admin, "?status=published"))).toEqual(["Alpha", "Beta", "Gamma"]);
    const ignored = await list(admin, "?status=archived");
    expect(ignored.total).toBe(5);

    const numbers = await list(admin, "?q=NUMBERS");
    expect(titles(numbers)).toEqual(["Alpha", "Gamma", "Epsilon"]);
    expect(numbers.counts).toEqual({ all: 3, published: 2, draft: 1 });
    const both = await list(admin, "?q=numbers&status=published");
    expect(titles(both)).toEqual(["Alpha", "Gamma"]);
    expect(both).toMatchObject({ total: 2, counts: { all: 3, published: 2, draft: 1 } });
    expect(titles(await list(admin, "?q=eps"))).toEqual(["Epsilon"]);
    // LIKE wildcards match themselves.
    expect((await list(admin, "?q=%25")).total).toBe(0);
    for (const q of ["_", "%25%25", "__", "%5C"]) expect({ q, total: (await list(admin, `?q=${q}`)).total }).toEqual({ q, total: 0 });
  });

  it("pages with page and limit; past the last page the counts and total stay", async () => {
    const { admin } = await catalogue();
    const first = await list(admin, "?limit=2");
    expect(titles(first)).toEqual(["Alpha", "Beta"]);
    expect(first).toMatchObject({ total: 5, page: 1, limit: 2 });
    expect(titles(await list(admin, "?limit=2&page=3"))).toEqual(["Epsilon"]);
    const past = await list(admin, "?limit=2&page=9");
    expect(past).toMatchObject({ courses: [], total: 5, page: 9, limit: 2, counts: { all: 5, published: 3, draft: 2 } });
  });

  it("orders equal positions by creation, then id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const first = await insertCourseTree(school.id, { title: "First" });
    const second = await insertCourseTree(school.id, { title: "Second" });
    await db().update(schema.courses).set({ createdAt: 1000 }).where(eq(schema.courses.id, second.courseId));
    await db().update(schema.courses).set({ createdAt: 2000 }).where(eq(schema.courses.id, first.courseId));
    await setPosition(first.courseId, 0);
    await setPosition(second.courseId, 0);
    expect(titles(await list(admin))).toEqual(["Second", "First"]);
  });

  it("shows students published courses only, with access and progress on the ones they are enrolled in; `enrolled` filters", async () => {
    const { school, courses } = await catalogue();
    const student = await signedIn(school, { role: "student" });
    const enrollment = await insertEnrollment(school.id, courses.Beta!, student.id, { totalBlocks: 2 });
    await db().update(schema.enrollments).set({ blocksCompleted: 1 }).where(eq(schema.enrollments.id, enrollment));
    // An enrollment in a draft does not show the draft.
    await insertEnrollment(school.id, courses.Delta!, student.id);

    const data = await list(student);
    expect(titles(data)).toEqual(["Alpha", "Beta", "Gamma"]);
    expect(data.counts).toEqual({ all: 3, published: 3, draft: 0 });
    const [alpha, beta] = data.courses;
    expect(alpha).toMatchObject({ auth_has_access: false, locked: false, locked_reason: null, available_from: null, available_until: null });
    expect(alpha).not.toHaveProperty("progress");
    expect(beta).toMatchObject({ auth_has_access: true, progress: { blocks_completed: 1, total_blocks: 2, pct: "50.00", completed_at: null } });

    const enrolled = await list(student, "?enrolled=true");
    expect(titles(enrolled)).toEqual(["Beta"]);
    expect(enrolled).toMatchObject({ total: 1, counts: { all: 1, published: 1, draft: 0 } });
    const others = await list(student, "?enrolled=false");
    expect(titles(others)).toEqual(["Alpha", "Gamma"]);
    expect(others.counts).toEqual({ all: 2, published: 2, draft: 0 });
    expect((await list(student, "?status=draft")).courses).toEqual([]);

    // A removed enrollment is no access.
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, enrollment));
    expect(titles(await list(student, "?enrolled=true"))).toEqual([]);
  });

  it("ignores `enrolled` for staff", async () => {
    const { school, admin, courses } = await catalogue();
    await insertEnrollment(school.id, courses.Alpha!, admin.id);
    expect((await list(admin, "?enrolled=true")).total).toBe(5);
    expect((await list(admin, "?enrolled=false")).total).toBe(5);
  });

  it("never lists another school's courses", async () => {
    const { admin } = await catalogue();
    const other = await schoolWithAdmin();
    await insertCourseTree(other.school.id, { title: "Foreign" });
    expect(titles(await list(other.admin))).toEqual(["Foreign"]);
    expect(titles(await list(admin))).not.toContain("Foreign");
  });

  it("answers 400 invalid_params for a bad page, limit, enrolled or q", async () => {
    const { admin } = await schoolWithAdmin();
    for (const query of ["?page=0", "?page=x", "?limit=0", "?limit=101", "?limit=1.5", "?enrolled=yes", `?q=${"x".repeat(201)}`, "?q=%00"]) {
      expect({ query, ...failure(await as(admin, `/t/courses${query}`)) }).toEqual({ query, status: 400, error: "invalid_params" });
    }
    expect((await as(admin, "/t/courses?limit=100&page=1")).status).toBe(200);
  });
});
