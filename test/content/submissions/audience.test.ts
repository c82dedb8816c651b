import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { signedIn, schoolWithAdmin } from "../../helpers/users";
import { call } from "../../notifications/helpers";
import { insertAssignment, insertSubmission } from "../assignments/helpers";
import { draftOf, submit } from "./helpers";

/** What submissions add to campaign audiences: the field `assignment_submitted` (in / not_in assignment ids). */

async function submissionAudience() {
  const { school, admin } = await schoolWithAdmin();
  const make = (firstName: string) => createUser(school.id, { role: "student", firstName });
  const [anna, bekzod, dilya, eldor, farid] = [await make("Anna"), await make("Bekzod"), await make("Dilya"), await make("Eldor"), await make("Farid")];
  await make("Gulya");
  const essay = await insertAssignment(school.id);
  const lab = await insertAssignment(school.id);
  const deleted = await insertAssignment(school.id, { deleted: true });
  // Anna handed the essay in; Bekzod's lab is accepted while his essay is still a draft.
  await insertSubmission(school.id, essay.id, anna.id, { status: "submitted" });
  await insertSubmission(school.id, lab.id, bekzod.id, { status: "accepted", scoreHundredths: 9_000 });
  await insertSubmission(school.id, essay.id, bekzod.id, { status: "draft" });
  // Dilya only has a draft; Eldor was rejected and is drafting his second attempt (the rejected one counts).
  await insertSubmission(school.id, essay.id, dilya.id, { status: "draft" });
  await insertSubmission(school.id, essay.id, eldor.id, { attempt: 1, status: "rejected" });
  await insertSubmission(school.id, essay.id, eldor.id, { attempt: 2, status: "draft" });
  // Farid handed in an assignment deleted since.
  await insertSubmission(school.id, deleted.id, farid.id, { status: "submitted" });
  // Another school's student, with a row naming the essay, never appears.
  const foreign = await createSchool();
  await insertSubmission(foreign.id, essay.id, (await createUser(foreign.id, { role: "student" })).id, { status: "submitted" });
  return { school, admin, assignments: { essay: essay.id, lab: lab.id, deleted: deleted.id } };
}

const preview = (admin: { token: string; subdomain: string }, rules: unknown[], match = "all") =>
  call(admin, "/t/notifications/admin/audience/preview", { body: { filter: { match, rules } } });

async function audienceOf(admin: { token: string; subdomain: string }, rules: unknown[], match = "all") {
  const res = await preview(admin, rules, match);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const names = (res.body.data.audience.sample as { first_name: string }[]).map((student) => student.first_name).sort();
  expect(res.body.data.audience.count).toBe(names.length);
  return names;
}

describe("assignment_submitted", () => {
  it("in / not_in: the student has a submission beyond draft (submitted, accepted or rejected) of a listed live assignment", async () => {
    const { admin, assignments } = await submissionAudience();
    const rule = (operator: string, values: string[]) => ({ field: "assignment_submitted", operator, values });
    const cases: [unknown, string[]][] = [
      [rule("in", [assignments.essay]), ["Anna", "Eldor"]],
      [rule("in", [assignments.lab]), ["Bekzod"]],
      [rule("in", [assignments.essay, assignments.lab.toUpperCase()]), ["Anna", "Bekzod", "Eldor"]],
      [rule("in", [assignments.deleted]), []],
      [rule("not_in", [assignments.essay]), ["Bekzod", "Dilya", "Farid", "Gulya"]],
      [rule("not_in", [assignments.essay, assignments.lab]), ["Dilya", "Farid", "Gulya"]],
      [rule("not_in", [assignments.deleted]), ["Anna", "Bekzod", "Dilya", "Eldor", "Farid", "Gulya"]],
    ];
    for (const [filterRule, expected] of cases) {
      expect({ rule: filterRule, names: await audienceOf(admin, [filterRule]) }).toEqual({ rule: filterRule, names: expected });
    }
    // Handed in the essay, not the lab.
    expect(await audienceOf(admin, [rule("in", [assignments.essay]), rule("not_in", [assignments.lab])])).toEqual(["Anna", "Eldor"]);
    expect(await audienceOf(admin, [rule("in", [assignments.lab]), rule("in", [assignments.essay])], "any")).toEqual(["Anna", "Bekzod", "Eldor"]);
  });

  it("a student enters the audience when their draft is submitted through the API, not before", async () => {
    const { school, admin, assignments } = await submissionAudience();
    const student = await signedIn(school, { role: "student", firstName: "Hana" });
    const rule = { field: "assignment_submitted", operator: "in", values: [assignments.lab] };
    const draft = await draftOf(student, assignments.lab);
    expect(await audienceOf(admin, [rule])).toEqual(["Bekzod"]);
    expect((await submit(student, draft.id)).status).toBe(200);
    expect(await audienceOf(admin, [rule])).toEqual(["Bekzod", "Hana"]);
  });

  it("400 invalid_notification_audience for another operator, missing, empty or malformed ids", async () => {
    const { admin, assignments } = await submissionAudience();
    const bad: unknown[] = [
      { field: "assignment_submitted", operator: "eq", values: [assignments.essay] },
      { field: "assignment_submitted", operator: "gte", value: 1 },
      { field: "assignment_submitted", operator: "in", values: [] },
      { field: "assignment_submitted", operator: "not_in" },
      { field: "assignment_submitted", operator: "in", values: ["not-a-uuid"] },
    ];
    for (const filterRule of bad) {
      expect({ rule: filterRule, ...failure(await preview(admin, [filterRule])) }).toEqual({ rule: filterRule, status: 400, error: "invalid_notification_audience" });
    }
  });
});
