import { SELF } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { fixtureD1 } from "../helpers/databases";
import { createUser } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { emailsTo } from "../helpers/outbox";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../helpers/users";
import { applyPlan, upload } from "./helpers";

/** Roster import with a dry run (05 section 3): upload, plan, rows, errors.csv, apply. */

afterEach(() => setClockForTests(null));

async function usersOf(tenantId: string) {
  const { results } = await fixtureD1
    .prepare("SELECT email, first_name, last_name, role, password_hash, individual_curator_id FROM users WHERE tenant_id = ? AND deleted_at IS NULL ORDER BY email")
    .bind(tenantId)
    .all<{ email: string; first_name: string; last_name: string; role: string; password_hash: string; individual_curator_id: string | null }>();
  return results;
}

async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const group = await createGroup(school.id, { name: "10A" });
  const kept = await createUser(school.id, { email: "kept@import.test", firstName: "Kept" });
  const renamed = await createUser(school.id, { email: "renamed@import.test", firstName: "Old" });
  const staff = await createUser(school.id, { role: "curator", email: "staff@import.test", firstName: "Staff" });
  return { school, admin, group, kept, renamed, staff };
}

describe("POST /t/imports?kind=users: the dry run", () => {
  it("plans creates, updates, unchanged and every kind of bad row; writes nothing else", async () => {
    const { school, admin } = await setup();
    const csv = [
      "Email,First_Name,Last_Name,Role,Group",
      "new@import.test,Anna,Ivanova,,10A",
      "kept@import.test,Kept,User,,",
      "renamed@import.test,New,User,student,",
      "not-an-email,Bad,Email,,",
      ",No,Email,,",
      "x1@import.test,,Surname,,",
      "x2@import.test,Name,Surname,teacher,",
      "new@import.test,Anna,Again,,",
      "x3@import.test,Name,Surname,,11B",
      "x4@import.test,Name,Surname,curator,10A",
      "staff@import.test,Staff,User,,10A",
    ].join("\r\n");
    const res = await upload(admin, "users", csv);
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ kind: "users", status: "ready", applied_at: null, result: null, counts: { rows: 11, create: 1, update: 1, unchanged: 1, error: 8 } });
    expect(Date.parse(data.expires_at) - Date.parse(data.created_at)).toBe(86_400_000);
    expect(data.plan_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(data.preview).toEqual([
      {
        row: 1,
        action: "create",
        key: "new@import.test",
        changes: { email: [null, "new@import.test"], first_name: [null, "Anna"], last_name: [null, "Ivanova"], role: [null, "student"], group: [null, "10A"] },
        errors: [],
      },
      { row: 2, action: "unchanged", key: "kept@import.test", changes: {}, errors: [] },
      { row: 3, action: "update", key: "renamed@import.test", changes: { first_name: ["Old", "New"] }, errors: [] },
      { row: 4, action: "error", key: "not-an-email", changes: {}, errors: [{ column: "email", code: "invalid_email" }] },
      { row: 5, action: "error", key: "", changes: {}, errors: [{ column: "email", code: "missing_value" }] },
      { row: 6, action: "error", key: "x1@import.test", changes: {}, errors: [{ column: "first_name", code: "missing_value" }] },
      { row: 7, action: "error", key: "x2@import.test", changes: {}, errors: [{ column: "role", code: "invalid_role" }] },
      { row: 8, action: "error", key: "new@import.test", changes: {}, errors: [{ column: "email", code: "duplicate_in_file" }] },
      { row: 9, action: "error", key: "x3@import.test", changes: {}, errors: [{ column: "group", code: "group_not_found" }] },
      { row: 10, action: "error", key: "x4@import.test", changes: {}, errors: [{ column: "group", code: "not_a_student" }] },
      { row: 11, action: "error", key: "staff@import.test", changes: {}, errors: [{ column: "group", code: "not_a_student" }] },
    ]);
    expect((await usersOf(school.id)).map((user) => user.email)).not.toContain("new@import.test");
  });

  it("reads semicolons, a BOM, Russian headers, quoted fields with newlines and doubled quotes", async () => {
    const { school, admin } = await setup();
    void school;
    const csv = '\uFEFFПочта;Имя;Фамилия;Роль;Заметки\n"a@import.test";"Анна ""Аня""";Иванова;Студент;"две\nстроки"\nb@import.test;Борис;Сидоров;куратор;\n';
    const res = await upload(admin, "users", csv);
    expect(res.status).toBe(201);
    expect(res.body.data.preview.map((row: { changes: unknown }) => row.changes)).toEqual([
      { email: [null, "a@import.test"], first_name: [null, 'Анна "Аня"'], last_name: [null, "Иванова"], role: [null, "student"] },
      { email: [null, "b@import.test"], first_name: [null, "Борис"], last_name: [null, "Сидоров"], role: [null, "curator"] },
    ]);
  });

  it("a file where no row can be applied is invalid", async () => {
    const { admin } = await setup();
    const res = await upload(admin, "users", "email,first_name,last_name\nbad,A,B\n");
    expect(res.body.data).toMatchObject({ status: "invalid", counts: { rows: 1, create: 0, update: 0, unchanged: 0, error: 1 } });
  });

  it("answers the contract's errors", async () => {
    const { admin } = await setup();
    expect(failure(await upload(admin, "teachers", "email\n"))).toEqual({ status: 400, error: "invalid_import_kind" });
    expect(failure(await upload(admin, "users", ""))).toEqual({ status: 400, error: "import_empty" });
    expect(failure(await upload(admin, "users", "email,first_name,last_name\n\n"))).toEqual({ status: 400, error: "import_empty" });
    const tooMany = ["email,first_name,last_name", ...Array.from({ length: 5001 }, (_, i) => `u${i}@import.test,A,B`)].join("\n");
    expect(failure(await upload(admin, "users", tooMany))).toEqual({ status: 400, error: "import_too_large" });
    expect(failure(await upload(admin, "users", "email,name\n" + "x".repeat(5 * 1024 * 1024)))).toEqual({ status: 400, error: "import_too_large" });
    const missing = await upload(admin, "users", "email,name\na@import.test,A\n");
    expect(failure(missing)).toEqual({ status: 400, error: "import_missing_columns" });
    expect(missing.body.details.map((detail: { path: string }) => detail.path)).toEqual(["first_name", "last_name"]);
    expect(failure(await upload(admin, "users", "email,first_name,last_name\na@import.test,A,B\n", "application/json"))).toEqual({
      status: 415,
      error: "unsupported_media_type",
    });
  });

  it("group_members needs can_manage_groups besides can_manage_students", async () => {
    const { school } = await setup();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    expect(failure(await upload(curator, "group_members", "email,group\na@import.test,10A\n"))).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("row codes of enrollments and group_members, and a restricted curator's scope", () => {
  it("enrollments: user_not_found, course_not_found, not_a_student, out_of_scope, unchanged for an active enrollment", async () => {
    const { school, admin, kept, renamed } = await setup();
    const course = await insertCourseTree(school.id, { slug: "algebra" });
    await insertEnrollment(school.id, course.courseId, kept.id);
    const csv = [
      "email,course_slug",
      "kept@import.test,algebra",
      "renamed@import.test,algebra",
      "ghost@import.test,algebra",
      "renamed@import.test,geometry",
      "staff@import.test,algebra",
      "renamed@import.test,",
      "renamed@import.test,algebra",
    ].join("\n");
    const res = await upload(admin, "enrollments", csv);
    expect(res.status).toBe(201);
    expect(res.body.data.preview).toEqual([
      { row: 1, action: "unchanged", key: "kept@import.test", changes: {}, errors: [] },
      { row: 2, action: "create", key: "renamed@import.test", changes: { course_slug: [null, "algebra"] }, errors: [] },
      { row: 3, action: "error", key: "ghost@import.test", changes: {}, errors: [{ column: "email", code: "user_not_found" }] },
      { row: 4, action: "error", key: "renamed@import.test", changes: {}, errors: [{ column: "course_slug", code: "course_not_found" }] },
      { row: 5, action: "error", key: "staff@import.test", changes: {}, errors: [{ column: "email", code: "not_a_student" }] },
      { row: 6, action: "error", key: "renamed@import.test", changes: {}, errors: [{ column: "course_slug", code: "missing_value" }] },
      { row: 7, action: "error", key: "renamed@import.test", changes: {}, errors: [{ column: "email", code: "duplicate_in_file" }] },
    ]);
    void renamed;
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const scoped = await upload(curator, "enrollments", "email,course_slug\nrenamed@import.test,algebra\n");
    expect(scoped.body.data.preview[0].errors).toEqual([{ column: "email", code: "out_of_scope" }]);
    const users = await upload(curator, "users", "email,first_name,last_name,role,group\nkept@import.test,Kept,User,,\nc@import.test,C,C,curator,\nd@import.test,D,D,,10A\n");
    expect(users.body.data.preview.map((row: { errors: unknown }) => row.errors)).toEqual([
      [{ column: "email", code: "out_of_scope" }],
      [{ column: "role", code: "out_of_scope" }],
      [{ column: "group", code: "out_of_scope" }],
    ]);
  });

  it("group_members: group_not_found, missing group, unchanged for a member", async () => {
    const { school, admin, group, kept } = await setup();
    await addMember(group, kept.id);
    const res = await upload(admin, "group_members", "email,Группа\nkept@import.test,10A\nrenamed@import.test,10A\nrenamed@import.test,9Z\nrenamed@import.test,\n");
    expect(res.body.data.preview).toEqual([
      { row: 1, action: "unchanged", key: "kept@import.test", changes: {}, errors: [] },
      { row: 2, action: "create", key: "renamed@import.test", changes: { group: [null, "10A"] }, errors: [] },
      { row: 3, action: "error", key: "renamed@import.test", changes: {}, errors: [{ column: "group", code: "group_not_found" }] },
      { row: 4, action: "error", key: "renamed@import.test", changes: {}, errors: [{ column: "group", code: "missing_value" }] },
    ]);
    void school;
  });
});

describe("GET /t/imports/:id, rows and errors.csv", () => {
  it("the creator or an admin reads it; others get 404", async () => {
    const { school, admin } = await setup();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const other = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    const created = await upload(curator, "users", "email,first_name,last_name\na@import.test,A,B\nbad,A,B\n");
    const id = created.body.data.id;
    expect((await as(curator, `/t/imports/${id}`)).body.data).toEqual(created.body.data);
    expect((await as(admin, `/t/imports/${id}`)).status).toBe(200);
    expect(failure(await as(other, `/t/imports/${id}`))).toEqual({ status: 404, error: "import_not_found" });
    expect(failure(await as(admin, `/t/imports/${unknownId()}`))).toEqual({ status: 404, error: "import_not_found" });
    expect(failure(await as(admin, `/t/imports/not-a-uuid`))).toEqual({ status: 400, error: "invalid_id_format" });
    const stranger = (await schoolWithAdmin()).admin;
    expect(failure(await as(stranger, `/t/imports/${id}`))).toEqual({ status: 404, error: "import_not_found" });
  });

  it("rows pages and filters by action", async () => {
    const { admin } = await setup();
    const csv = ["email,first_name,last_name", ...Array.from({ length: 620 }, (_, i) => (i % 100 === 99 ? `bad${i},A,B` : `r${i}@import.test,A,B`))].join("\n");
    const id = (await upload(admin, "users", csv)).body.data.id;
    const page = await as(admin, `/t/imports/${id}/rows?page=2&limit=500`);
    expect(page.body.data).toMatchObject({ total: 620, page: 2, limit: 500 });
    expect(page.body.data.rows.map((row: { row: number }) => row.row)).toEqual(Array.from({ length: 120 }, (_, i) => 501 + i));
    const errors = await as(admin, `/t/imports/${id}/rows?action=error`);
    expect(errors.body.data).toMatchObject({ total: 6, page: 1, limit: 100 });
    expect(errors.body.data.rows.map((row: { row: number }) => row.row)).toEqual([100, 200, 300, 400, 500, 600]);
    expect(failure(await as(admin, `/t/imports/${id}/rows?limit=501`))).toEqual({ status: 400, error: "invalid_params" });
    expect(failure(await as(admin, `/t/imports/${id}/rows?action=maybe`))).toEqual({ status: 400, error: "invalid_params" });
    expect(failure(await as(admin, `/t/imports/${unknownId()}/rows`))).toEqual({ status: 404, error: "import_not_found" });
  });

  it("errors.csv: the error rows as written plus error, with a BOM", async () => {
    const { admin } = await setup();
    const id = (await upload(admin, "users", "Email;Имя;Фамилия;Notes\nok@import.test;A;B;x\nbad;=1+1;B;y\n;A;;z\n")).body.data.id;
    const res = await as(admin, `/t/imports/${id}/errors.csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    // The helper reads the body as text, which drops the byte-order mark: the raw bytes keep it.
    const raw = await SELF.fetch(`https://api.lms.localhost/api/v1/t/imports/${id}/errors.csv`, { headers: { authorization: `Bearer ${admin.token}`, "x-tenant-subdomain": admin.subdomain } });
    expect([...new Uint8Array(await raw.arrayBuffer()).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(res.body).toBe("Email,Имя,Фамилия,Notes,error\r\nbad,'=1+1,B,y,email: invalid_email\r\n,A,,z,email: missing_value; last_name: missing_value\r\n");
    expect(failure(await as(admin, `/t/imports/${unknownId()}/errors.csv`))).toEqual({ status: 404, error: "import_not_found" });
  });
});

describe("POST /t/imports/:id/apply", () => {
  it("applies exactly the plan: users created with an invitation, renamed, group joined; the same file again creates nothing", async () => {
    const { school, admin, group } = await setup();
    const csv = "email,first_name,last_name,group\nnew@import.test,Anna,Ivanova,10A\nkept@import.test,Kept,User,\nrenamed@import.test,New,User,\nbad,A,B,\n";
    const plan = (await upload(admin, "users", csv)).body.data;
    expect(failure(await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash }))).toEqual({ status: 409, error: "import_has_errors" });
    expect(failure(await applyPlan(admin, plan.id, { plan_hash: "0".repeat(64), skip_errors: true }))).toEqual({ status: 409, error: "import_plan_stale" });
    expect(failure(await applyPlan(admin, plan.id, { skip_errors: true }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await applyPlan(admin, unknownId(), { plan_hash: plan.plan_hash }))).toEqual({ status: 404, error: "import_not_found" });
    const res = await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash, skip_errors: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: "applied", result: { created: 1, updated: 1, unchanged: 1, skipped: 1 } });
    expect(res.body.data.applied_at).toEqual(expect.any(String));
    const users = await usersOf(school.id);
    expect(users.filter((user) => user.email.endsWith("@import.test")).map((user) => [user.email, user.first_name, user.last_name, user.role])).toEqual([
      ["kept@import.test", "Kept", "User", "student"],
      ["new@import.test", "Anna", "Ivanova", "student"],
      ["renamed@import.test", "New", "User", "student"],
      ["staff@import.test", "Staff", "User", "curator"],
    ]);
    expect(users.find((user) => user.email === "new@import.test")!.password_hash).toBe("!invited");
    const { results: members } = await fixtureD1.prepare("SELECT u.email FROM group_members gm JOIN users u ON u.id = gm.user_id WHERE gm.group_id = ?").bind(group.id).all();
    expect(members).toEqual([{ email: "new@import.test" }]);
    const [invite] = await emailsTo("new@import.test");
    expect(invite).toMatchObject({ kind: "account_invite", tenant_id: school.id });
    const code = /code=(\d{6})/.exec(invite!.text_body!)![1]!;
    expect(invite!.text_body).toContain(`://${school.subdomain}.lms.localhost/set-password?school=${school.subdomain}&email=new%40import.test&code=`);
    expect(invite!.text_body).toContain("7 дней");
    // The link's code sets the first password through the password-reset confirmation; it is valid 7 days.
    setClockForTests({ now: () => Date.now() + 6 * 86_400_000 });
    const reset = await api("/auth/reset-password", { method: "POST", body: { email: "new@import.test", subdomain: school.subdomain, code, new_password: "Secret-pass-1" } });
    expect(reset.status).toBe(200);
    setClockForTests(null);
    expect(failure(await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash, skip_errors: true }))).toEqual({ status: 409, error: "import_already_applied" });
    const again = (await upload(admin, "users", csv)).body.data;
    expect(again.counts).toEqual({ rows: 4, create: 0, update: 0, unchanged: 3, error: 1 });
    const second = await applyPlan(admin, again.id, { plan_hash: again.plan_hash, skip_errors: true });
    expect(second.body.data.result).toEqual({ created: 0, updated: 0, unchanged: 3, skipped: 1 });
    expect((await usersOf(school.id)).length).toBe(users.length);
    expect(await emailsTo("new@import.test")).toHaveLength(1);
    const { results: audit } = await fixtureD1.prepare("SELECT action, target_id, changes FROM audit_entries WHERE tenant_id = ? AND action = 'import.applied' ORDER BY at").bind(school.id).all<{ changes: string; target_id: string }>();
    expect(audit).toHaveLength(2);
    expect(JSON.parse(audit[0]!.changes)).toEqual({
      kind: [null, "users"],
      file_sha256: [null, await sha256(csv)],
      created: [null, 1],
      updated: [null, 1],
      unchanged: [null, 1],
      skipped: [null, 1],
    });
  });

  it("a restricted curator's new students are theirs; a student cannot reach the import", async () => {
    const { school } = await setup();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const student = await signedIn(school, { role: "student" });
    const plan = (await upload(curator, "users", "email,first_name,last_name\nmine@import.test,Mine,Student\n")).body.data;
    expect(failure(await as(student, `/t/imports/${plan.id}`))).toEqual({ status: 404, error: "import_not_found" });
    expect(failure(await applyPlan(student, plan.id, { plan_hash: plan.plan_hash }))).toEqual({ status: 404, error: "import_not_found" });
    expect((await applyPlan(curator, plan.id, { plan_hash: plan.plan_hash })).body.data.result).toEqual({ created: 1, updated: 0, unchanged: 0, skipped: 0 });
    expect((await usersOf(school.id)).find((user) => user.email === "mine@import.test")).toMatchObject({ role: "student", individual_curator_id: curator.id });
  });

  it("refuses a plan the data no longer matches, and an expired import", async () => {
    const { school, admin } = await setup();
    const plan = (await upload(admin, "users", "email,first_name,last_name\nlate@import.test,A,B\n")).body.data;
    await createUser(school.id, { email: "late@import.test" });
    expect(failure(await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash }))).toEqual({ status: 409, error: "import_plan_stale" });
    expect((await usersOf(school.id)).filter((user) => user.email === "late@import.test")).toHaveLength(1);
    const old = (await upload(admin, "users", "email,first_name,last_name\nold@import.test,A,B\n")).body.data;
    // 24 hours later (the admin's token would have expired by then: the import's clock is moved instead).
    await fixtureD1.prepare("UPDATE imports SET expires_at = ? WHERE id = ?").bind(Date.now(), old.id).run();
    expect(failure(await applyPlan(admin, old.id, { plan_hash: old.plan_hash }))).toEqual({ status: 410, error: "import_expired" });
  });

  it("enrollments and group memberships go through their own verbs", async () => {
    const { school, admin, group, kept, renamed } = await setup();
    const course = await insertCourseTree(school.id, { slug: "algebra" });
    const enroll = (await upload(admin, "enrollments", "email,course_slug\nkept@import.test,algebra\nrenamed@import.test,algebra\n")).body.data;
    expect((await applyPlan(admin, enroll.id, { plan_hash: enroll.plan_hash })).body.data.result).toEqual({ created: 2, updated: 0, unchanged: 0, skipped: 0 });
    const { results: enrolled } = await fixtureD1.prepare("SELECT student_id FROM enrollments WHERE course_id = ? AND removed_at IS NULL ORDER BY student_id").bind(course.courseId).all();
    expect(enrolled).toEqual([kept.id, renamed.id].sort().map((id) => ({ student_id: id })));
    const join = (await upload(admin, "group_members", "email,group\nkept@import.test,10A\n")).body.data;
    expect((await applyPlan(admin, join.id, { plan_hash: join.plan_hash })).body.data.result).toEqual({ created: 1, updated: 0, unchanged: 0, skipped: 0 });
    const { results: members } = await fixtureD1.prepare("SELECT user_id FROM group_members WHERE group_id = ?").bind(group.id).all();
    expect(members).toEqual([{ user_id: kept.id }]);
  });
});

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
