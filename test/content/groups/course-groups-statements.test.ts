import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertCourseTree } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { as, createGroup, schoolWithAdmin } from "../../helpers/users";
import { countedRequest } from "../../helpers/counted";

const counted = countedRequest;

/** A group of `size` students, written in slices (D1 binds at most 100 parameters per statement). */
async function groupOf(tenantId: string, size: number) {
  const group = await createGroup(tenantId);
  const now = Date.now();
  const users = Array.from({ length: size }, (_, i) => ({
    id: uuidv7(),
    tenantId,
    email: `member-${i}-${group.id.slice(-6)}@example.com`,
    passwordHash: "x",
    firstName: "M",
    lastName: String(i),
    role: "student" as const,
    createdAt: now,
    updatedAt: now,
  }));
  for (let start = 0; start < users.length; start += 10) await db().insert(schema.users).values(users.slice(start, start + 10));
  const members = users.map((user) => ({ tenantId, groupId: group.id, userId: user.id, joinedAt: now }));
  for (let start = 0; start < members.length; start += 20) await db().insert(schema.groupMembers).values(members.slice(start, start + 20));
  return group;
}

describe("D1 work of the course group endpoints", () => {
  it("enroll a group: the auth query, the two events' settings and one batch of eight statements, whatever the group's size", async () => {
    const { school, admin } = await schoolWithAdmin();
    await createUser(school.id, { role: "student" });
    for (const size of [1, 120]) {
      const tree = await insertCourseTree(school.id, { shape: [2, 2, 2] });
      const group = await groupOf(school.id, size);
      const path = `/t/courses/${tree.courseId}/group-enrollments`;
      expect(await counted(admin, path, { method: "POST", body: { group_id: group.id } })).toEqual({ status: 201, counts: { prepare: 11, batch: 1, exec: 0 } });
      expect(await counted(admin, path, { method: "POST", body: { group_id: group.id } })).toEqual({ status: 200, counts: { prepare: 11, batch: 1, exec: 0 } });
      const list = await as(admin, path);
      expect(list.body.data.group_enrollments[0]).toMatchObject({ member_count: size, enrolled_students_count: size, would_remove_count: size });
    }
  });

  it("remove a group's link: the auth query, the push settings and one batch of six statements (the audit entry included)", async () => {
    const { school, admin } = await schoolWithAdmin();
    // On, so the push statement is a real one (course.unenrolled is off by default).
    await as(admin, "/t/notifications/admin/events/course.unenrolled", { method: "PATCH", body: { enabled: true } });
    const tree = await insertCourseTree(school.id);
    const group = await groupOf(school.id, 30);
    await as(admin, `/t/courses/${tree.courseId}/group-enrollments`, { body: { group_id: group.id } });
    expect(await counted(admin, `/t/courses/${tree.courseId}/group-enrollments/${group.id}`, { method: "DELETE" })).toEqual({
      status: 200,
      counts: { prepare: 8, batch: 1, exec: 0 },
    });
  });

  it("list: the auth query and one batch of three statements for a full page", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    for (let i = 0; i < 25; i++) {
      const group = await groupOf(school.id, 2);
      await as(admin, `/t/courses/${tree.courseId}/group-enrollments`, { body: { group_id: group.id } });
    }
    expect(await counted(admin, `/t/courses/${tree.courseId}/group-enrollments?limit=100`)).toEqual({ status: 200, counts: { prepare: 4, batch: 1, exec: 0 } });
    const list = await as(admin, `/t/courses/${tree.courseId}/group-enrollments?limit=100`);
    expect(list.body.data).toMatchObject({ total: 25, counts: { groups: 25, students: 50 } });
  });
});
