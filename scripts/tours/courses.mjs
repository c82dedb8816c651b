import { COURSE } from "../seed/courses.mjs";
import { id } from "../seed/demo.mjs";
import { PEOPLE, label, labelOf, pick } from "./lib/tour.mjs";

export const summary = "the course tree, self-enrollment, lessons and completion, enrollments and CSV, authoring a course";

/** Enrolls Omar (student4; a repeat answers 200) and creates and deletes a course of its own. */
export async function run(t) {
  const { admin, student1, student4 } = PEOPLE;
  const lesson = COURSE.lessons[0];
  const block = id(0xd01);
  const ada = await t.login(admin);
  const sara = await t.login(student1);
  const omar = await t.login(student4);

  t.section("The catalogue: staff see the draft too; a student sees published courses and her own progress");
  await t.step("Ada's catalogue", { who: ada, path: "/t/courses?limit=5", show: (json) => ({ counts: json.data.counts, titles: json.data.courses.map((c) => c.title) }) });
  await t.step(`${labelOf(student1)} catalogue`, { who: sara, path: "/t/courses", show: (json) => json.data.courses.map((c) => pick(c, ["title", "auth_has_access", "progress"])) });

  t.section("The module index: lessons with `passed` and light blocks (no links, no embedded objects)");
  await t.step("Sara's module index", {
    who: sara,
    path: `/t/courses/${COURSE.id}/modules`,
    show: (json) => json.data.modules.map((m) => ({ title: m.title, lessons: m.lessons.map((l) => ({ title: l.title, passed: l.passed, blocks: l.blocks.map((b) => b.type) })) })),
  });

  t.section(`${label(student4)} enrolls himself, opens the first lesson and completes its first block`);
  await t.step("Enroll (201 the first time, 200 on a repeat)", { method: "POST", who: omar, path: `/t/courses/${COURSE.id}/enroll`, expect: [200, 201] });
  await t.step("The first lesson: full blocks with fresh media links; the read records where he is", {
    who: omar,
    path: `/t/lessons/${lesson}`,
    show: (json) => ({ title: json.data.title, blocks: json.data.blocks.map((b) => ({ type: b.type, url: (b.url ?? "").slice(0, 40) })) }),
  });
  await t.step("Complete its first block (idempotent)", { method: "POST", who: omar, path: `/t/blocks/${block}/complete`, show: (json) => json.data.progress });
  await t.step("His progress and where to resume", { who: omar, path: `/t/courses/${COURSE.id}`, show: (json) => pick(json.data, ["progress", "resume"]) });
  await t.step("His completions", { who: omar, path: `/t/courses/${COURSE.id}/my-completions` });

  t.section("Staff: enrollments with status buckets and the CSV export (BOM, Russian header, streamed)");
  await t.step("Enrollments", {
    who: ada,
    path: `/t/courses/${COURSE.id}/enrollments`,
    show: (json) => ({ counts: json.data.counts, avg_progress: json.data.avg_progress, rows: json.data.enrollments.map((e) => [e.student_email, e.pct, e.status]) }),
  });
  const csv = await t.step("The CSV export", { who: ada, path: `/t/courses/${COURSE.id}/enrollments/export.csv` });
  t.check(typeof csv === "string" && csv.startsWith("\uFEFF"), "the CSV starts with a byte-order mark");

  t.section("Authoring: a course with a fresh slug, a module, a lesson and blocks, then publish, duplicate and delete both");
  const course = await t.step("A course (the description is sanitized)", {
    method: "POST",
    who: ada,
    path: "/t/courses",
    body: { title: "Tour course", slug: `tour-${t.runId}`, description: "<p>Hello<script>alert(1)</script></p>" },
    expect: 201,
    show: (json) => pick(json.data, ["id", "slug", "status", "description"]),
  });
  const courseId = course.data.id;
  const module = await t.step("A module", { method: "POST", who: ada, path: `/t/courses/${courseId}/modules`, body: { title: "Week 1" }, expect: 201, show: (json) => pick(json.data, ["id", "title"]) });
  const newLesson = await t.step("A lesson", { method: "POST", who: ada, path: `/t/modules/${module.data.id}/lessons`, body: { title: "Day 1" }, expect: 201, show: (json) => pick(json.data, ["id", "title"]) });
  await t.step("A text block (the html is sanitized, the stray key dropped)", {
    method: "POST",
    who: ada,
    path: `/t/lessons/${newLesson.data.id}/blocks`,
    body: { type: "text", payload: { html: '<p onclick="x()">Read me</p>', stray: 1 } },
    expect: 201,
    show: (json) => pick(json.data, ["type", "payload"]),
  });
  await t.step("An embed must be https", { method: "POST", who: ada, path: `/t/lessons/${newLesson.data.id}/blocks`, body: { type: "embed", payload: { url: "http://example.com" } }, expect: 400 });
  await t.step("Publish", { method: "POST", who: ada, path: `/t/courses/${courseId}/publish` });
  const copy = await t.step("Duplicate (a draft with slug -copy)", { method: "POST", who: ada, path: `/t/courses/${courseId}/duplicate`, expect: 201, show: (json) => pick(json.data, ["id", "slug", "status"]) });
  await t.step("The copy", { who: ada, path: `/t/courses/${copy.data.id}`, show: (json) => pick(json.data, ["title", "slug", "status", "total_blocks"]) });
  await t.step("Delete the copy", { method: "DELETE", who: ada, path: `/t/courses/${copy.data.id}`, expect: 204 });
  await t.step("Delete the course", { method: "DELETE", who: ada, path: `/t/courses/${courseId}`, expect: 204 });
}
