import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../helpers/factories";
import { addMember, as, assignIndividualCurator, createGroup, curatorWith, listIds, schoolWithAdmin, signedIn } from "../helpers/users";

describe("GET /t/users", () => {
  it("answers users with groups (join order) and individual curator, plus total, page and limit defaults", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator", firstName: "Kamola" });
    const student = await createUser(school.id, { role: "student", firstName: "Bobur" });
    await assignIndividualCurator(student.id, curator.id);
    const later = await createGroup(school.id, { name: "Later", logo: "https://cdn.example.com/later.png" });
    const earlier = await createGroup(school.id, { name: "Earlier" });
    const gone = await createGroup(school.id, { name: "Deleted", deleted: true });
    await addMember(later, student.id, Date.now());
    await addMember(earlier, student.id, Date.now() - 60_000);
    await addMember(gone, student.id, Date.now() - 120_000);

    const res = await as(admin, "/t/users");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 3, page: 1, limit: 20 });
    const row = res.body.data.users.find((user: { id: string }) => user.id === student.id);
    expect(row).toEqual({
      id: student.id,
      tenant_id: school.id,
      email: student.email,
      first_name: "Bobur",
      last_name: "User",
      avatar: null,
      role: "student",
      is_active: true,
      last_active_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      group_count: 2,
      groups: [
        { group_id: earlier.id, name: "Earlier", logo: null },
        { group_id: later.id, name: "Later", logo: "https://cdn.example.com/later.png" },
      ],
      individual_curator_id: curator.id,
      individual_curator_first_name: "Kamola",
      individual_curator_last_name: "User",
      individual_curator_email: curator.email,
    });
    const adminRow = res.body.data.users.find((user: { id: string }) => user.id === admin.id);
    expect(adminRow).toMatchObject({ group_count: 0, groups: [], individual_curator_id: null, individual_curator_email: null });
  });

  it("pages newest first and counts the whole filtered set", async () => {
    const { school, admin } = await schoolWithAdmin();
    const students = [];
    for (let i = 0; i < 5; i++) students.push(await createUser(school.id, { role: "student" }));
    const page2 = await as(admin, "/t/users?role=student&limit=2&page=2");
    expect(page2.status).toBe(200);
    expect(page2.body.data).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(page2.body.data.users.map((user: { id: string }) => user.id)).toEqual([students[2]!.id, students[1]!.id]);
    const beyond = await as(admin, "/t/users?role=student&limit=2&page=9");
    expect(beyond.body.data).toMatchObject({ users: [], total: 5, page: 9 });
  });

  it("filters by role (comma list or repeated), status and q over names and email", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator" });
    const active = await createUser(school.id, { role: "student", firstName: "Zarina" });
    const inactive = await createUser(school.id, { role: "student", isActive: false, email: `percent_100%.${Date.now()}@example.test` });

    const sorted = (ids: string[]) => [...ids].sort();
    expect(sorted(await listIds(admin, "&role=curator,student"))).toEqual(sorted([curator.id, active.id, inactive.id]));
    expect(sorted(await listIds(admin, "&role=curator&role=admin"))).toEqual(sorted([curator.id, admin.id]));
    expect(await listIds(admin, "&role=student&status=inactive")).toEqual([inactive.id]);
    expect(sorted(await listIds(admin, "&status=active"))).toEqual(sorted([admin.id, curator.id, active.id]));
    expect(await listIds(admin, "&q=zarina")).toEqual([active.id]);
    expect(await listIds(admin, `&q=${encodeURIComponent("Zarina User")}`)).toEqual([active.id]);
    expect(await listIds(admin, `&q=${encodeURIComponent(active.email.toUpperCase())}`)).toEqual([active.id]);
    // LIKE wildcards in q are literal characters.
    expect(await listIds(admin, `&q=${encodeURIComponent("_100%")}`)).toEqual([inactive.id]);
    expect(await listIds(admin, "&q=%25")).toEqual([inactive.id]);
  });

  it("never shows another school's users or deleted users", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await createSchool();
    await createUser(other.id, { role: "student" });
    const deleted = await createUser(school.id, { role: "student" });
    expect((await as(admin, `/t/users/${deleted.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await listIds(admin)).toEqual([admin.id]);
  });

  it("answers 400 `invalid_params` for bad paging or filters", async () => {
    const { admin } = await schoolWithAdmin();
    for (const query of ["limit=0", "limit=201", "page=0", "page=x", "role=teacher", "role=student,teacher", "role=", "status=deleted", `q=${"x".repeat(101)}`]) {
      const res = await as(admin, `/t/users?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toBe("invalid_params");
    }
    expect((await as(admin, "/t/users?limit=200")).status).toBe(200);
  });

  it("answers 403 `forbidden` to students and to curators without manage_students", async () => {
    const school = await createSchool();
    for (const options of [{ role: "student" as const }, curatorWith({ can_manage_groups: true, can_view_analytics: true })]) {
      const caller = await signedIn(school, options);
      const res = await as(caller, "/t/users");
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: "forbidden" });
    }
  });
});
