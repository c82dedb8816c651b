import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { addGroupCurator, createGroup, schoolWithAdmin } from "../../helpers/users";
import { addPushDevice, call, outboxRows } from "../../notifications/helpers";
import { addMembers, linkGroup, removeMembers } from "./members-helpers";

const setEvent = (admin: { token: string; subdomain: string }, code: string, enabled: boolean) =>
  call(admin, `/t/notifications/admin/events/${code}`, { method: "PATCH", body: { enabled } });

async function rowsOf(tenantId: string, code: string) {
  return (await outboxRows(tenantId)).filter((row) => row.eventCode === code);
}

/** A student with an enabled push device, so pushes can reach them. */
async function reachableStudent(tenantId: string, options: { isActive?: boolean } = {}) {
  const student = await createUser(tenantId, { role: "student", isActive: options.isActive });
  await addPushDevice(tenantId, student.id);
  return student;
}

async function joinedAt(groupId: string, studentId: string) {
  const rows = await db().select().from(schema.groupMembers).where(eq(schema.groupMembers.groupId, groupId));
  return rows.find((row) => row.userId === studentId)!.joinedAt;
}

describe("group.member_added (#51)", () => {
  it("one push per added student with the group's name, curator and course count; no course.enrolled; none on a repeat", async () => {
    const { school, admin } = await schoolWithAdmin();
    await addPushDevice(school.id, admin.id);
    const group = await createGroup(school.id, { name: "Evening class" });
    const curator = await createUser(school.id, { role: "curator", firstName: "Olga" });
    await addGroupCurator(group, curator.id);
    for (let i = 0; i < 2; i++) await linkGroup(school.id, group.id, (await insertCourseTree(school.id)).courseId);
    const first = await reachableStudent(school.id);
    const second = await reachableStudent(school.id);
    const inactive = await reachableStudent(school.id, { isActive: false });
    const unreachable = await createUser(school.id, { role: "student" });

    const res = await addMembers(admin, group.id, [first.id, second.id, inactive.id, unreachable.id]);
    expect(res.body.data.added).toEqual([first.id, second.id, inactive.id, unreachable.id]);
    const rows = await rowsOf(school.id, "group.member_added");
    expect(rows.map((row) => row.userId).sort()).toEqual([first.id, second.id].sort());
    const v = await joinedAt(group.id, first.id);
    for (const row of rows) {
      expect(row).toMatchObject({
        title: "Вы в группе «Evening class»",
        body: "Вас добавили в группу «Evening class» (курсов: 2). Куратор: Olga User.",
        aggregateType: "group",
        aggregateId: group.id,
        dedupeKey: `group.member_added:${group.id}:${v}:${row.userId}`,
        data: { event_code: "group.member_added", group_id: group.id, group_name: "Evening class", curator_name: "Olga User", courses_count: 2 },
      });
    }
    expect(await rowsOf(school.id, "course.enrolled")).toEqual([]);

    expect((await addMembers(admin, group.id, [first.id])).body.data.added).toEqual([]);
    expect(await rowsOf(school.id, "group.member_added")).toHaveLength(2);
  });

  it("a group without a curator or courses says so; nothing when the school turned the event off", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id, { name: "Solo" });
    const student = await reachableStudent(school.id);
    await addMembers(admin, group.id, [student.id]);
    const [row] = await rowsOf(school.id, "group.member_added");
    expect(row).toMatchObject({ body: "Вас добавили в группу «Solo» (курсов: 0). Куратор: —.", data: { courses_count: 0, curator_name: null } });

    expect((await setEvent(admin, "group.member_added", false)).status).toBe(200);
    await addMembers(admin, group.id, [(await reachableStudent(school.id)).id]);
    expect(await rowsOf(school.id, "group.member_added")).toHaveLength(1);
  });
});

describe("group.member_removed (#52)", () => {
  it("off by default; when on, one push per removed student, no course.unenrolled; a refused removal sends nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id, { name: "Morning class" });
    await linkGroup(school.id, group.id, (await insertCourseTree(school.id)).courseId);
    await setEvent(admin, "course.unenrolled", true);
    const quiet = await reachableStudent(school.id);
    const first = await reachableStudent(school.id);
    const second = await reachableStudent(school.id);
    const outsider = await reachableStudent(school.id);
    await addMembers(admin, group.id, [quiet.id, first.id, second.id]);

    expect((await removeMembers(admin, group.id, [quiet.id])).status).toBe(200);
    expect(await rowsOf(school.id, "group.member_removed")).toEqual([]);

    expect((await setEvent(admin, "group.member_removed", true)).status).toBe(200);
    expect((await removeMembers(admin, group.id, [first.id, outsider.id])).status).toBe(404);
    expect(await rowsOf(school.id, "group.member_removed")).toEqual([]);
    expect((await removeMembers(admin, group.id, [first.id, second.id])).status).toBe(200);
    const rows = await rowsOf(school.id, "group.member_removed");
    expect(rows.map((row) => row.userId).sort()).toEqual([first.id, second.id].sort());
    for (const row of rows) {
      expect(row).toMatchObject({
        title: "Вы исключены из группы",
        body: "Вас исключили из группы «Morning class».",
        aggregateType: "group",
        aggregateId: group.id,
        dedupeKey: expect.stringMatching(new RegExp(`^group\\.member_removed:${group.id}:\\d+:${row.userId}$`)),
        data: { event_code: "group.member_removed", group_id: group.id, group_name: "Morning class" },
      });
    }
    expect(await rowsOf(school.id, "course.unenrolled")).toEqual([]);
  });
});
