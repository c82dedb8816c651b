import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "accounts of a school: list, create, update, curator and role, a restricted curator's scope, bulk, own profile";

/** Creates its own student (a new email each run) and deletes it; renames Timur (student2) and puts the name back. */
export async function run(t) {
  const { admin, restrictedCurator, student2, student4 } = PEOPLE;
  const ada = await t.login(admin, { extra: { device_platform: "android" } });

  t.section("List: paging (1-200, default 20), role as a comma list, status, q over names and email");
  await t.step("Students and curators matching 'student'", {
    who: ada,
    path: "/t/users?role=student,curator&status=active&q=student&limit=5",
    show: (json) => ({ total: json.data.total, page: json.data.page, limit: json.data.limit, users: json.data.users.map((u) => [u.email, u.role, u.group_count, u.individual_curator_email]) }),
  });

  t.section("Create a student: the welcome email links to the school's sign-in page and never holds the password");
  const created = await t.step("Create Nodira", {
    method: "POST",
    who: ada,
    path: "/t/users",
    body: { email: `nodira.${t.runId}@demo.test`, password: "welcome123", first_name: "Nodira", last_name: "New", role: "student" },
    expect: 201,
  });
  const { id, email } = created.data;
  const mailbox = await t.step("The welcome email (local dev mailbox)", {
    path: `/dev/mailbox?to=${encodeURIComponent(email)}`,
    show: (json) => json.data.messages.map((m) => ({ kind: m.kind, subject: m.subject, meta: m.meta })),
  });
  t.check(!JSON.stringify(mailbox).includes("welcome123"), "the welcome email does not contain the password");

  t.section("One user with groups and individual curator; update names and avatar");
  await t.step("Read Nodira", { who: ada, path: `/t/users/${id}` });
  await t.step("Rename her and set an avatar URL", {
    method: "PUT",
    who: ada,
    path: `/t/users/${id}`,
    body: { last_name: "Newton", avatar: "https://example.com/a.png" },
    show: (json) => ({ first_name: json.data.first_name, last_name: json.data.last_name, avatar: json.data.avatar }),
  });
  t.note("Names refuse control characters, and bodies refuse keys they do not document: both 400 invalid_request_body.");
  await t.step("A control character in a name", { method: "PUT", who: ada, path: `/t/users/${id}`, body: { last_name: "New\u0007ton" }, expect: 400 });
  await t.step("An undocumented key", { method: "PUT", who: ada, path: `/t/users/${id}`, body: { last_name: "Newton", is_admin: true }, expect: 400 });

  t.section("An individual curator, then a role change to curator and wider permissions");
  await t.step(`Give her ${label(restrictedCurator)} as individual curator`, {
    method: "PUT",
    who: ada,
    path: `/t/users/${id}/curator`,
    body: { curator_id: restrictedCurator.id },
    show: (json) => ({ individual_curator_id: json.data.individual_curator_id, individual_curator_email: json.data.individual_curator_email }),
  });
  await t.step("Make her a curator", { method: "PUT", who: ada, path: `/t/users/${id}/role`, body: { role: "curator" }, show: (json) => ({ role: json.data.role, permissions: json.data.permissions }) });
  await t.step("Widen her permissions", {
    method: "PUT",
    who: ada,
    path: `/t/users/${id}/permissions`,
    body: { can_manage_courses: true, can_manage_students: true, can_manage_groups: false, can_view_analytics: true, can_manage_exams: false, can_manage_notifications: false },
  });

  t.section(`The restricted curator sees only her own students (Morning group + Lola): 404 outside`);
  const rita = await t.login(restrictedCurator);
  await t.step("Rita's list of users", { who: rita, path: "/t/users", show: (json) => json.data.users.map((u) => u.email) });
  await t.step(`${label(student4)} is outside her scope`, { who: rita, path: `/t/users/${student4.id}`, expect: 404 });
  await t.step("Bulk deactivation outside her scope reports not_in_scope", { method: "POST", who: rita, path: "/t/users/bulk-deactivate", body: { ids: [student4.id] } });

  t.section("Bulk (1-100 ids, idempotent; deactivation ends the users' sessions at once), then deletion");
  await t.step("Deactivate Nodira", { method: "POST", who: ada, path: "/t/users/bulk-deactivate", body: { ids: [id] } });
  await t.step("Activate her again", { method: "POST", who: ada, path: "/t/users/bulk-activate", body: { ids: [id] } });
  await t.step("Delete her", { method: "DELETE", who: ada, path: `/t/users/${id}` });
  await t.step("Delete her for good", { method: "DELETE", who: ada, path: `/t/users/${id}/permanent` });

  t.section(`Own profile and password (any member): ${label(student2)} renames himself, then puts the name back`);
  const timur = await t.login(student2);
  await t.step("His profile", { who: timur, path: "/t/me/profile", show: (json) => pick(json.data, ["email", "first_name", "last_name", "role", "tenant"]) });
  await t.step("Rename", { method: "PATCH", who: timur, path: "/t/me/profile", body: { first_name: "Timur-Lee" }, show: (json) => json.data.first_name });
  await t.step("Put the name back", { method: "PATCH", who: timur, path: "/t/me/profile", body: { first_name: student2.firstName }, show: (json) => json.data.first_name });
  t.note("A wrong current password counts toward the sign-in lock; the same password again is refused.");
  await t.step("A wrong current password", { method: "POST", who: timur, path: "/t/me/password", body: { current_password: "wrong-one", new_password: "another123" }, expect: 400 });
  await t.step("The same password again", { method: "POST", who: timur, path: "/t/me/password", body: { current_password: "demo12345", new_password: "demo12345" }, expect: 400 });
}
