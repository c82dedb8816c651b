import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createSchool, createUser, db } from "../../helpers/factories";
import { schoolWithAdmin } from "../../helpers/users";
import { call } from "../../notifications/helpers";
import { insertPath } from "./helpers";

/** What learning paths add to campaign audiences: the `path_enrolled` field and the `path` options. */

async function pathAudience() {
  const { school, admin } = await schoolWithAdmin();
  const make = (firstName: string) => createUser(school.id, { role: "student", firstName });
  const [anna, bekzod, dilya, eldor] = [await make("Anna"), await make("Bekzod"), await make("Dilya"), await make("Eldor")];
  const [first, second] = [await insertCourseTree(school.id), await insertCourseTree(school.id)];
  const draft = await insertCourseTree(school.id, { status: "draft" });
  const web = await insertPath(school.id, { title: "Web", courseIds: [first.courseId, second.courseId, draft.courseId] });
  const data = await insertPath(school.id, { title: "Data", status: "draft", courseIds: [second.courseId] });
  await insertEnrollment(school.id, first.courseId, anna.id);
  await insertEnrollment(school.id, second.courseId, bekzod.id);
  // Dilya is enrolled only in the draft course; Eldor's enrollment was removed.
  await insertEnrollment(school.id, draft.courseId, dilya.id);
  const removed = await insertEnrollment(school.id, first.courseId, eldor.id);
  await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, removed));
  return { school, admin, web, data };
}

const names = (res: { body: any }) => (res.body.data.audience.sample as { first_name: string }[]).map((s) => s.first_name).sort();

describe("path_enrolled", () => {
  it("in / not_in: the paths' registries (an active enrollment in a published course of the path)", async () => {
    const { admin, web, data } = await pathAudience();
    const cases: [unknown, string[]][] = [
      [{ field: "path_enrolled", operator: "in", values: [web] }, ["Anna", "Bekzod"]],
      [{ field: "path_enrolled", operator: "in", values: [data] }, ["Bekzod"]],
      [{ field: "path_enrolled", operator: "not_in", values: [web] }, ["Dilya", "Eldor"]],
    ];
    for (const [rule, expected] of cases) {
      const res = await call(admin, "/t/notifications/admin/audience/preview", { body: { filter: { match: "all", rules: [rule] } } });
      expect({ rule, status: res.status, names: names(res) }).toEqual({ rule, status: 200, names: expected });
    }
    await db().update(schema.learningPaths).set({ deletedAt: Date.now() }).where(eq(schema.learningPaths.id, web));
    const gone = await call(admin, "/t/notifications/admin/audience/preview", { body: { filter: { match: "all", rules: [{ field: "path_enrolled", operator: "in", values: [web] }] } } });
    expect(names(gone)).toEqual([]);
  });
});

describe("path options", () => {
  it("the school's live paths with their status and course count", async () => {
    const { admin, web } = await pathAudience();
    await insertPath((await createSchool()).id, { title: "Foreign" });
    const res = await call(admin, "/t/notifications/admin/audience/options?kind=path");
    expect(res.status).toBe(200);
    expect((res.body.data.options as { id: string; label: string; subtitle: string }[]).map((o) => [o.label, o.subtitle])).toEqual([
      ["Data", "draft · 1 courses"],
      ["Web", "published · 3 courses"],
    ]);
    expect((await call(admin, "/t/notifications/admin/audience/options?kind=path&q=we")).body.data.options).toMatchObject([{ id: web, label: "Web" }]);
  });
});
