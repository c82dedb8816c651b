import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { addGroupCurator, addMember, createGroup, curatorWith, schoolWithAdmin, signedIn } from "../../helpers/users";
import { addPushDevice, call, outboxRows } from "../../notifications/helpers";
import { enrollmentOf, linkGroup, linkRows, unlinkGroup } from "./course-groups-helpers";

const setEvent = (admin: { token: string; subdomain: string }, code: string, enabled: boolean) =>
  call(admin, `/t/notifications/admin/events/${code}`, { method: "PATCH", body: { enabled } });

async function rowsOf(tenantId: string, code: string) {
  return (await outboxRows(tenantId)).filter((row) => row.eventCode === code);
}

/** A user with an enabled push device, so pushes can reach them. */
async function reachable(tenantId: string, options: Parameters<typeof createUser>[1] = { role: "student" }) {
  const user = await createUser(tenantId, options);
  await addPushDevice(tenantId, user.id);
  return user;
}

describe("course.enrolled (#31) from a group's course link", () => {
  it("only the members who got real new access are told (a restored enrollment included); none on a repeat", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { title: "Algebra" });
    const group = await createGroup(school.id);
    const fresh = await reachable(school.id);
    const direct = await reachable(school.id);
    const returning = await reachable(school.id);
    for (const student of [fresh, direct, returning]) await addMember(group, student.id);
    await insertEnrollment(school.id, tree.courseId, direct.id);
    const oldId = await insertEnrollment(school.id, tree.courseId, returning.id);
    await db().delete(schema.enrollmentSources).where(eq(schema.enrollmentSources.enrollmentId, oldId));
    await db().update(schema.enrollments).set({ removedAt: Date.now() - 5000 }).where(eq(schema.enrollments.id, oldId));

    const res = await linkGroup(admin, tree.courseId, group.id);
    expect(res.body.data).toMatchObject({ enrolled_count: 2, already_enrolled_count: 1 });
    const rows = await rowsOf(school.id, "course.enrolled");
    expect(rows.map((row) => row.userId).sort()).toEqual([fresh.id, returning.id].sort());
    const enrolledAt = (await enrollmentOf(tree.courseId, fresh.id))!.enrolledAt;
    for (const row of rows) {
      expect(row).toMatchObject({
        body: "Вы записаны на курс «Algebra».",
        aggregateType: "course",
        aggregateId: tree.courseId,
        dedupeKey: `course.enrolled:${tree.courseId}:${enrolledAt}:${row.userId}`,
      });
    }
    expect((await linkGroup(admin, tree.courseId, group.id)).status).toBe(200);
    expect(await rowsOf(school.id, "course.enrolled")).toHaveLength(2);
  });

  it("a student holding access through another group is not told again", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const morning = await createGroup(school.id);
    const evening = await createGroup(school.id);
    const student = await reachable(school.id);
    await addMember(morning, student.id);
    await addMember(evening, student.id);
    await linkGroup(admin, tree.courseId, morning.id);
    expect((await linkGroup(admin, tree.courseId, evening.id)).body.data).toMatchObject({ enrolled_count: 0, already_enrolled_count: 1 });
    expect((await rowsOf(school.id, "course.enrolled")).map((row) => row.userId)).toEqual([student.id]);
  });
});

describe("course.unenrolled (#32) from removing a group's course link", () => {
  it("only students whose last source went are told, once", async () => {
    const { school, admin } = await schoolWithAdmin();
    expect((await setEvent(admin, "course.unenrolled", true)).status).toBe(200);
    const tree = await insertCourseTree(school.id, { title: "Biology" });
    const morning = await createGroup(school.id);
    const evening = await createGroup(school.id);
    const only = await reachable(school.id);
    const twoGroups = await reachable(school.id);
    const direct = await reachable(school.id);
    await addMember(morning, only.id);
    await addMember(morning, twoGroups.id);
    await addMember(evening, twoGroups.id);
    await addMember(morning, direct.id);
    await insertEnrollment(school.id, tree.courseId, direct.id);
    await linkGroup(admin, tree.courseId, morning.id);
    await linkGroup(admin, tree.courseId, evening.id);

    expect((await unlinkGroup(admin, tree.courseId, morning.id)).body.data).toEqual({ removed_count: 1, retained_count: 2 });
    let rows = await rowsOf(school.id, "course.unenrolled");
    const removedAt = (await enrollmentOf(tree.courseId, only.id))!.removedAt;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      userId: only.id,
      body: "Вы больше не записаны на курс «Biology».",
      aggregateId: tree.courseId,
      dedupeKey: `course.unenrolled:${tree.courseId}:${removedAt}:${only.id}`,
    });

    expect((await unlinkGroup(admin, tree.courseId, evening.id)).body.data).toEqual({ removed_count: 1, retained_count: 0 });
    rows = await rowsOf(school.id, "course.unenrolled");
    expect(rows.map((row) => row.userId)).toEqual([only.id, twoGroups.id]);
  });

  it("off by default: removing the link tells nobody", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    await addMember(group, (await reachable(school.id)).id);
    await linkGroup(admin, tree.courseId, group.id);
    expect((await unlinkGroup(admin, tree.courseId, group.id)).body.data).toEqual({ removed_count: 1, retained_count: 0 });
    expect(await rowsOf(school.id, "course.unenrolled")).toEqual([]);
  });
});

describe("group.course_enrolled (#55)", () => {
  it("the group's curator is told once per new link, with the new accesses counted; not on a repeat, not the acting curator", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { title: "Chemistry" });
    const group = await createGroup(school.id, { name: "Night owls" });
    const curator = await reachable(school.id, curatorWith({}));
    await addGroupCurator(group, curator.id);
    const fresh = await createUser(school.id, { role: "student" });
    const direct = await createUser(school.id, { role: "student" });
    await addMember(group, fresh.id);
    await addMember(group, direct.id);
    await insertEnrollment(school.id, tree.courseId, direct.id);

    const res = await linkGroup(admin, tree.courseId, group.id);
    expect(res.status).toBe(201);
    const [link] = await linkRows(tree.courseId);
    let rows = await rowsOf(school.id, "group.course_enrolled");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      userId: curator.id,
      title: "Группа записана на курс",
      body: "Группа «Night owls» записана на курс «Chemistry» (новых доступов: 1).",
      aggregateType: "group",
      aggregateId: group.id,
      dedupeKey: `group.course_enrolled:${group.id}:${link!.id}:${curator.id}`,
      data: { event_code: "group.course_enrolled", group_id: group.id, group_name: "Night owls", course_title: "Chemistry", enrolled_count: 1 },
    });
    expect((await linkGroup(admin, tree.courseId, group.id)).status).toBe(200);
    expect(await rowsOf(school.id, "group.course_enrolled")).toHaveLength(1);

    // A new link after a removal is a new link: told again.
    await unlinkGroup(admin, tree.courseId, group.id);
    expect((await linkGroup(admin, tree.courseId, group.id)).status).toBe(201);
    rows = await rowsOf(school.id, "group.course_enrolled");
    expect(rows).toHaveLength(2);
    expect(rows[1]!.body).toBe("Группа «Night owls» записана на курс «Chemistry» (новых доступов: 1).");

    // A group's own curator enrolling it is not told of their own action.
    const acting = await signedIn(school, curatorWith({ can_manage_groups: true }));
    await addPushDevice(school.id, acting.id);
    const own = await createGroup(school.id);
    await addGroupCurator(own, acting.id);
    expect((await linkGroup(acting, tree.courseId, own.id)).status).toBe(201);
    expect(await rowsOf(school.id, "group.course_enrolled")).toHaveLength(2);
  });

  it("nothing when the school turned the event off, or when the group has no curator", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const plain = await createGroup(school.id);
    expect((await linkGroup(admin, tree.courseId, plain.id)).status).toBe(201);
    const curated = await createGroup(school.id);
    await addGroupCurator(curated, (await reachable(school.id, curatorWith({}))).id);
    expect((await setEvent(admin, "group.course_enrolled", false)).status).toBe(200);
    expect((await linkGroup(admin, tree.courseId, curated.id)).status).toBe(201);
    expect(await rowsOf(school.id, "group.course_enrolled")).toEqual([]);
  });
});
