import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { setClockForTests } from "../../../src/core/lib/clock";
import { uuidv7 } from "../../../src/core/lib/ids";
import { insertCourseTree, ISO, MEDIA_LINK } from "../../helpers/courses";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { storedImage } from "../../media/helpers";

const post = (member: Parameters<typeof as>[0], body: unknown) => as(member, "/t/groups", { body });
const patch = (member: Parameters<typeof as>[0], id: string, body: unknown) => as(member, `/t/groups/${id}`, { method: "PATCH", body });
const remove = (member: Parameters<typeof as>[0], id: string) => as(member, `/t/groups/${id}`, { method: "DELETE" });

async function groupRow(id: string) {
  const [row] = await db().select().from(schema.groups).where(eq(schema.groups.id, id));
  return row;
}

describe("POST /t/groups", () => {
  it("creates a group authored by the caller, with trimmed fields, no curator and no members", async () => {
    const { admin } = await schoolWithAdmin();
    const res = await post(admin, { name: "  Morning  ", description: "Line one\nline two", logo: "https://cdn.example.com/g.png" });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      name: "Morning",
      description: "Line one\nline two",
      logo: "https://cdn.example.com/g.png",
      logo_url: "https://cdn.example.com/g.png",
      created_by: admin.id,
      curator_id: null,
      curator_first_name: null,
      curator_last_name: null,
      curator_email: null,
      member_count: 0,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect((await as(admin, `/t/groups/${res.body.data.id}`)).body.data).toEqual(res.body.data);
  });

  it("takes an https URL (stored re-serialized), a confirmed image of the school (a fresh link on reads), and no logo; refuses an http URL", async () => {
    const { school, admin } = await schoolWithAdmin();
    const image = await storedImage(school.id);
    const fromAsset = await post(admin, { name: "Pictured", logo: image.toUpperCase() });
    expect(fromAsset.body.data).toMatchObject({ logo: image, logo_url: expect.stringMatching(MEDIA_LINK(image)), description: "" });
    expect((await post(admin, { name: "Upper case", logo: "https://CDN.example.com/A.png" })).body.data.logo).toBe("https://cdn.example.com/A.png");
    expect(failure(await post(admin, { name: "Plain http", logo: "http://example.com/a.png" }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect((await post(admin, { name: "None", logo: null })).body.data).toMatchObject({ logo: null, logo_url: null });
    expect((await post(admin, { name: "Empty", logo: "" })).body.data).toMatchObject({ logo: null, logo_url: null });
  });

  it("a curator with can_manage_groups creates groups too", async () => {
    const { school } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_groups: true }));
    const res = await post(curator, { name: "Curated" });
    expect(res.status).toBe(201);
    expect(res.body.data.created_by).toBe(curator.id);
  });

  it("answers group_name_required for an empty, blank or over-long name (120 is the most)", async () => {
    const { admin } = await schoolWithAdmin();
    for (const name of ["", "   ", "x".repeat(121)]) {
      expect({ name, ...failure(await post(admin, { name })) }).toEqual({ name, status: 400, error: "group_name_required" });
    }
    expect((await post(admin, { name: "x".repeat(120) })).status).toBe(201);
  });

  it("answers invalid_request_body for a missing or non-text name, a long description, a bad or foreign logo, unknown keys", async () => {
    const { admin } = await schoolWithAdmin();
    const other = await createSchool();
    const foreignImage = await storedImage(other.id);
    const { school } = await schoolWithAdmin();
    const pending = await storedImage(school.id, { status: "pending" });
    const bodies = [
      {},
      { name: 5 },
      { name: "Bad\u0000name" },
      { name: "A", description: "d".repeat(2001) },
      { name: "A", logo: "ftp://example.com/a.png" },
      { name: "A", logo: "not a logo" },
      { name: "A", logo: foreignImage },
      { name: "A", logo: pending },
      { name: "A", logo: unknownId() },
      { name: "A", curator_id: null },
    ];
    for (const body of bodies) {
      expect({ body, ...failure(await post(admin, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    expect(await db().select().from(schema.groups).where(eq(schema.groups.tenantId, admin.tenantId))).toEqual([]);
  });

  it("answers permission_denied to students and curators without can_manage_groups", async () => {
    const { school } = await schoolWithAdmin();
    for (const member of [await signedIn(school, { role: "student" }), await signedIn(school, curatorWith({ can_manage_students: true }))]) {
      expect(failure(await post(member, { name: "Nope" }))).toEqual({ status: 403, error: "permission_denied" });
    }
  });
});

describe("GET /t/groups/:id", () => {
  it("shows the curator and counts members who are live students", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id, { name: "Counted" });
    const curator = await createUser(school.id, { role: "curator", firstName: "Cora" });
    await addGroupCurator(group, curator.id);
    const live = await createUser(school.id, { role: "student" });
    const inactive = await createUser(school.id, { role: "student", isActive: false });
    const gone = await createUser(school.id, { role: "student" });
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, gone.id));
    for (const user of [live, inactive, gone]) await addMember(group, user.id);
    const res = await as(admin, `/t/groups/${group.id}`);
    expect(res.body.data).toMatchObject({
      id: group.id,
      name: "Counted",
      created_by: null,
      curator_id: curator.id,
      curator_first_name: "Cora",
      curator_last_name: "User",
      curator_email: curator.email,
      member_count: 2,
    });
  });

  it("a deleted curator account reads as no curator", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const curator = await createUser(school.id, { role: "curator" });
    await addGroupCurator(group, curator.id);
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, curator.id));
    expect((await as(admin, `/t/groups/${group.id}`)).body.data).toMatchObject({ curator_id: null, curator_email: null });
  });

  it("answers group_not_found for another school's, a deleted, an unknown or an unseen group; invalid_id_format for a bad id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await createSchool();
    const foreign = await createGroup(other.id);
    const deleted = await createGroup(school.id, { deleted: true });
    for (const id of [foreign.id, deleted.id, unknownId()]) {
      expect(failure(await as(admin, `/t/groups/${id}`))).toEqual({ status: 404, error: "group_not_found" });
    }
    const mine = await createGroup(school.id);
    const student = await signedIn(school, { role: "student" });
    const restricted = await signedIn(school, curatorWith({ can_manage_students: true }));
    expect(failure(await as(student, `/t/groups/${mine.id}`))).toEqual({ status: 404, error: "group_not_found" });
    expect(failure(await as(restricted, `/t/groups/${mine.id}`))).toEqual({ status: 404, error: "group_not_found" });
    await addMember(mine, student.id);
    await addGroupCurator(mine, restricted.id);
    expect((await as(student, `/t/groups/${mine.id}`)).status).toBe(200);
    expect((await as(restricted, `/t/groups/${mine.id}`)).status).toBe(200);
    expect(failure(await as(admin, "/t/groups/not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("PATCH /t/groups/:id", () => {
  it("changes the fields sent, keeps the others, and an empty logo removes it", async () => {
    const { school, admin } = await schoolWithAdmin();
    const created = (await post(admin, { name: "Before", description: "kept", logo: "https://example.com/a.png" })).body.data;
    const at = Date.now() + 60_000;
    setClockForTests({ now: () => at });
    const renamed = await patch(admin, created.id, { name: " After " });
    expect(renamed.body.data).toMatchObject({ name: "After", description: "kept", logo: "https://example.com/a.png" });
    expect(renamed.body.data.updated_at).toBe(new Date(at).toISOString());
    const image = await storedImage(school.id);
    expect((await patch(admin, created.id, { logo: image, description: "" })).body.data).toMatchObject({ logo: image, description: "", name: "After" });
    expect((await patch(admin, created.id, { logo: "" })).body.data).toMatchObject({ logo: null, logo_url: null });
    // An empty body changes nothing and answers the group.
    expect((await patch(admin, created.id, {})).body.data).toMatchObject({ id: created.id, name: "After" });
    expect(await groupRow(created.id)).toMatchObject({ name: "After", description: "", logo: null });
  });

  it("answers group_name_required, invalid_request_body and group_not_found", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id, { name: "Stays" });
    for (const name of ["", "  ", "y".repeat(121)]) {
      expect({ name, ...failure(await patch(admin, group.id, { name })) }).toEqual({ name, status: 400, error: "group_name_required" });
    }
    for (const body of [{ logo: unknownId() }, { logo: "nope" }, { description: "d".repeat(2001) }, { created_by: admin.id }]) {
      expect({ body, ...failure(await patch(admin, group.id, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    const other = await createSchool();
    for (const id of [(await createGroup(other.id)).id, (await createGroup(school.id, { deleted: true })).id, unknownId()]) {
      expect(failure(await patch(admin, id, { name: "X" }))).toEqual({ status: 404, error: "group_not_found" });
    }
    expect((await groupRow(group.id))!.name).toBe("Stays");
  });
});

describe("DELETE /t/groups/:id", () => {
  it("deletes softly with its memberships and curator in one go; the lesson access rows stay", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    const curator = await createUser(school.id, { role: "curator" });
    await addMember(group, student.id);
    await addGroupCurator(group, curator.id);
    const tree = await insertCourseTree(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: tree.lessonIds[0]!, groupId: group.id, createdAt: Date.now() });

    const res = await remove(admin, group.id);
    expect(res.body).toEqual({ success: true, data: { deleted: true } });
    expect((await groupRow(group.id))!.deletedAt).toEqual(expect.any(Number));
    expect(await db().select().from(schema.groupMembers).where(eq(schema.groupMembers.groupId, group.id))).toEqual([]);
    expect(await db().select().from(schema.groupCurators).where(eq(schema.groupCurators.groupId, group.id))).toEqual([]);
    expect(await db().select().from(schema.lessonGroups).where(eq(schema.lessonGroups.groupId, group.id))).toHaveLength(1);
    expect(failure(await as(admin, `/t/groups/${group.id}`))).toEqual({ status: 404, error: "group_not_found" });
    expect(failure(await remove(admin, group.id))).toEqual({ status: 404, error: "group_not_found" });
  });

  it("answers group_has_course_enrollments while a course link exists, and changes nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    await addMember(group, student.id);
    const tree = await insertCourseTree(school.id);
    await db()
      .insert(schema.courseGroupEnrollments)
      .values({ id: uuidv7(), tenantId: school.id, courseId: tree.courseId, groupId: group.id, enrolledAt: Date.now(), enrolledBy: admin.id });
    expect(failure(await remove(admin, group.id))).toEqual({ status: 409, error: "group_has_course_enrollments" });
    expect((await groupRow(group.id))!.deletedAt).toBeNull();
    expect(await db().select().from(schema.groupMembers).where(eq(schema.groupMembers.groupId, group.id))).toHaveLength(1);
  });

  it("answers group_not_found for another school's group", async () => {
    const { admin } = await schoolWithAdmin();
    const foreign = await createGroup((await createSchool()).id);
    expect(failure(await remove(admin, foreign.id))).toEqual({ status: 404, error: "group_not_found" });
    expect((await groupRow(foreign.id))!.deletedAt).toBeNull();
  });
});
