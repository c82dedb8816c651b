import { writeFile } from "node:fs/promises";
import path from "node:path";
import { id } from "../seed/demo.mjs";
import { PEOPLE, label, labelOf, pick } from "./lib/tour.mjs";

export const summary = "a student's assignments, a draft submitted, rejected and reopened by a curator, a file handed in, the screenshot policy";

const ASSIGNMENT = id(0x1301);

/**
 * Timur (student2) works on his draft (the same one each run: a reopen puts it back to draft);
 * Omar (student4) hands in a file from the tour's temp dir. The screenshot policy is put back.
 */
export async function run(t) {
  const { student2, student4, restrictedCurator, admin } = PEOPLE;
  const timur = await t.login(student2);
  const rita = await t.login(restrictedCurator);
  const ada = await t.login(admin);

  t.section(`${labelOf(student2)} assignments, his progress, the attached handout and its download link`);
  await t.step("His assignments", { who: timur, path: "/t/assignments", show: (json) => json.data.assignments.map((a) => pick(a, ["title", "max_score", "max_attempts", "my_submission_status"])) });
  await t.step("His progress", { who: timur, path: "/t/assignments/progress" });
  const assignment = await t.step("The assignment", { who: timur, path: `/t/assignments/${ASSIGNMENT}`, show: (json) => ({ title: json.data.title, attachments: json.data.attachments.map((a) => pick(a, ["id", "filename"])) }) });
  await t.step("A download link for the handout", { who: timur, path: `/t/assignments/${ASSIGNMENT}/attachments/${assignment.data.attachments[0].id}/download`, show: (json) => `${String(json.data).slice(0, 70)}…` });

  t.section("His draft (201 the first time, then the same draft), some text (sanitized), then submit");
  const draft = await t.step("His draft", { method: "POST", who: timur, path: `/t/assignments/${ASSIGNMENT}/submissions`, body: {}, expect: [200, 201], show: (json) => pick(json.data, ["id", "attempt", "status"]) });
  const sub = draft.data.id;
  await t.step("Some text", { method: "PATCH", who: timur, path: `/t/submissions/${sub}`, body: { text: "<p>My notes<script>alert(1)</script> on week one.</p>" }, show: (json) => pick(json.data, ["status", "text"]) });
  await t.step("Submit", { method: "POST", who: timur, path: `/t/submissions/${sub}/submit`, show: (json) => pick(json.data, ["attempt", "status"]) });

  t.section(`${labelOf(restrictedCurator)} worksheet (her students only), a rejection with feedback, then a reopen of the same attempt`);
  await t.step("The worksheet", { who: rita, path: `/t/assignments/${ASSIGNMENT}/submissions`, show: (json) => json.data.submissions.map((s) => pick(s, ["student_first_name", "status", "score", "attempt_count", "late"])) });
  await t.step("Reject with feedback", { method: "POST", who: rita, path: `/t/submissions/${sub}/review`, body: { status: "rejected", feedback: "Add a photo of your notes." }, show: (json) => pick(json.data, ["status", "feedback"]) });
  await t.step("Reopen the same attempt", { method: "POST", who: rita, path: `/t/submissions/${sub}/reopen`, show: (json) => pick(json.data, ["attempt", "status", "feedback"]) });

  t.section(`${label(student4)} hands in a file with his draft (multipart, up to 5 files; a later run finds his draft as it is)`);
  const omar = await t.login(student4);
  const notes = path.join(await t.tempDir(), "notes.txt");
  await writeFile(notes, "Week one: lessons, quizzes, exams.\n");
  await t.step("Hand in notes.txt", {
    method: "POST",
    who: omar,
    path: `/t/assignments/${ASSIGNMENT}/submissions`,
    form: { attachments: { file: notes, type: "text/plain" } },
    expect: [200, 201],
    show: (json) => ({ ...pick(json.data, ["attempt", "status"]), attachments: json.data.attachments.map((a) => pick(a, ["filename", "kind", "mime"])) }),
  });

  t.section("The school-wide screenshot policy: block screenshots on every assignment, then allow them again");
  await t.step("The policy for assignments", { who: ada, path: "/t/tenant/screenshot-protection", show: (json) => json.data.assignments });
  try {
    await t.step("Block", { method: "PATCH", who: ada, path: "/t/tenant/screenshot-protection", body: { content_type: "assignments", enabled: true }, show: (json) => ({ updated_count: json.data.updated_count, settings: json.data.settings.assignments }) });
  } finally {
    await t.step("Allow again", { method: "PATCH", who: ada, path: "/t/tenant/screenshot-protection", body: { content_type: "assignments", enabled: false }, show: (json) => ({ updated_count: json.data.updated_count, settings: json.data.settings.assignments }) });
  }
}
