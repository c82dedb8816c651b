import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { as, createGroup, schoolWithAdmin, signedIn } from "../helpers/users";

/**
 * Every search of the API with terms D1's LIKE could not take (over 50 bytes: long, multibyte,
 * wildcard-heavy): 200 with exactly the rows that contain the term. Each list holds a target that
 * contains the term and a decoy that would match only if `%`, `_` or `\` were wildcards or escapes.
 * Cyrillic letters match their own case (SQLite folds ASCII letters only, as LIKE did).
 */
const STEM = "Ёжик_в%тумане\\Школа №7 ";
const TARGET = `${STEM}Big Project`;
const DECOY = `${STEM.replace("_", "x").replace("%", "y").replace("\\", "z")}Big Project`;
const TERM = `${STEM}bIG pROJECT`; // the ASCII letters in another case
const LONG_TERM = `${TERM} `.repeat(3).trim(); // found in a value that repeats the target three times

const ids = (rows: { id: string }[]) => rows.map((row) => row.id).sort();
const q = (term: string) => encodeURIComponent(term);

async function createdId(res: Awaited<ReturnType<typeof as>>): Promise<string> {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body.data.id ?? res.body.data.user?.id) as string;
}

describe("search terms over 50 bytes, with wildcards and multibyte letters", () => {
  it("the terms are over D1's 50-byte LIKE limit", () => {
    expect([TERM.length, new TextEncoder().encode(TERM).length, LONG_TERM.length, new TextEncoder().encode(LONG_TERM).length]).toEqual([34, 52, 104, 158]);
  });

  it("users: by name and by email, literal wildcards", async () => {
    const { school, admin } = await schoolWithAdmin();
    const target = await createdId(await as(admin, "/t/users", { body: { email: `t${Date.now()}@example.test`, password: "a-secret-password", first_name: "Ёжик_в%тумане\\Школа", last_name: "№7 Big Project", role: "student" } }));
    await createdId(await as(admin, "/t/users", { body: { email: `d${Date.now()}@example.test`, password: "a-secret-password", first_name: "Ёжикxвyтуманеzшкола", last_name: "№7 Big Project", role: "student" } }));
    await signedIn(school, { role: "student" });
    const res = await as(admin, `/t/users?q=${q(TERM)}`);
    expect({ status: res.status, ids: ids(res.body.data.users), total: res.body.data.total }).toEqual({ status: 200, ids: [target], total: 1 });
    const wildcards = await as(admin, `/t/users?q=${q("%".repeat(30))}`);
    expect({ status: wildcards.status, total: wildcards.body.data.total }).toEqual({ status: 200, total: 0 });
    const accented = await as(admin, `/t/users?q=${q("é".repeat(100))}`);
    expect({ status: accented.status, total: accented.body.data.total }).toEqual({ status: 200, total: 0 });
  });

  it("courses (title and description), quizzes, learning paths, groups and assignments", async () => {
    const { admin } = await schoolWithAdmin();
    const lists: { create: string; list: string; field: string; max: number; key: string }[] = [
      { create: "/t/courses", list: "/t/courses", field: "title", max: 200, key: "courses" },
      { create: "/t/quizzes", list: "/t/quizzes", field: "title", max: 255, key: "quizzes" },
      { create: "/t/learning-paths", list: "/t/learning-paths", field: "title", max: 255, key: "paths" },
      { create: "/t/groups", list: "/t/groups", field: "name", max: 120, key: "groups" },
      { create: "/t/assignments", list: "/t/assignments", field: "title", max: 100, key: "assignments" },
    ];
    const outcome: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    for (const list of lists) {
      const slug = () => ({ slug: `s-${Math.random().toString(36).slice(2, 10)}` });
      const extra = list.create === "/t/courses" ? slug : () => ({});
      const target = await createdId(await as(admin, list.create, { body: { [list.field]: TARGET, ...extra() } }));
      const long = await createdId(await as(admin, list.create, { body: { [list.field]: `${TARGET} `.repeat(3).trim(), ...extra() } }));
      await createdId(await as(admin, list.create, { body: { [list.field]: DECOY, ...extra() } }));
      const found = await as(admin, `${list.list}?q=${q(TERM)}`);
      const foundLong = await as(admin, `${list.list}?q=${q(LONG_TERM.slice(0, list.max))}`);
      const wildcards = await as(admin, `${list.list}?q=${q("%".repeat(30))}`);
      const accented = await as(admin, `${list.list}?q=${q("é".repeat(Math.min(130, list.max)))}`);
      const rows = (res: typeof found) => (res.status === 200 ? ids(res.body.data[list.key]) : res.status);
      outcome[list.list] = { found: rows(found), long: rows(foundLong), wildcards: rows(wildcards), accented: rows(accented) };
      expected[list.list] = { found: [long, target].sort(), long: [long], wildcards: [], accented: [] };
    }
    expect(outcome).toEqual(expected);
    // A course's description is searched too.
    const described = await createdId(await as(admin, "/t/courses", { body: { title: "Plain", slug: "plain-desc", description: `<p>${TARGET}</p>` } }));
    const byDescription = await as(admin, `/t/courses?q=${q(TERM)}&status=draft`);
    expect(byDescription.body.data.courses.map((row: { id: string }) => row.id)).toContain(described);
  });

  it("course enrollments, group enrollments and rating events", async () => {
    const { school, admin } = await schoolWithAdmin();
    const course = (await insertCourseTree(school.id, { status: "published" })).courseId;
    const target = await createdId(await as(admin, "/t/users", { body: { email: `t${Date.now()}@example.test`, password: "a-secret-password", first_name: "Ёжик_в%тумане\\Школа", last_name: "№7 Big Project", role: "student" } }));
    const decoy = await createdId(await as(admin, "/t/users", { body: { email: `d${Date.now()}@example.test`, password: "a-secret-password", first_name: "Ёжикxвyтуманеzшкола", last_name: "№7 Big Project", role: "student" } }));
    for (const student of [target, decoy]) await insertEnrollment(school.id, course, student);
    const enrollments = await as(admin, `/t/courses/${course}/enrollments?q=${q(TERM)}`);
    expect({ status: enrollments.status, ids: enrollments.body.data.enrollments.map((row: { student_id: string }) => row.student_id) }).toEqual({ status: 200, ids: [target] });

    const groupTarget = await createGroup(school.id, { name: TARGET });
    const groupDecoy = await createGroup(school.id, { name: DECOY });
    for (const group of [groupTarget, groupDecoy]) expect((await as(admin, `/t/courses/${course}/group-enrollments`, { body: { group_id: group.id } })).status).toBe(201);
    const groups = await as(admin, `/t/courses/${course}/group-enrollments?q=${q(TERM)}`);
    expect({ status: groups.status, ids: groups.body.data.group_enrollments.map((row: { group_id: string }) => row.group_id) }).toEqual({ status: 200, ids: [groupTarget.id] });

    for (const reason of [TARGET, DECOY]) expect((await as(admin, "/t/admin/rating/adjustments", { body: { student_id: target, points: "1", reason } })).status).toBe(201);
    const events = await as(admin, `/t/admin/rating/students/${target}/events?reason_search=${q(TERM)}`);
    expect({ status: events.status, reasons: events.body.data.events.map((row: { reason: string }) => row.reason) }).toEqual({ status: 200, reasons: [TARGET] });
    const wild = await as(admin, `/t/admin/rating/students/${target}/events?reason_search=${q("%".repeat(40))}`);
    expect({ status: wild.status, reasons: wild.body.data.events }).toEqual({ status: 200, reasons: [] });
  });
});
