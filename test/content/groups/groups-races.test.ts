import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree } from "../../helpers/courses";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { createUser, db } from "../../helpers/factories";
import { addMember, createGroup, schoolWithAdmin } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";

describe("race: a group deleted while it is enrolled in a course", () => {
  it("DELETE and POST group-enrollments together: exactly one of them lands", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    await addMember(group, (await createUser(school.id, { role: "student" })).id);
    // Both requests have read a live, unlinked group before either writes.
    const barrier = barrierD1(await schoolD1(school.id), { held: /update groups set deleted_at|insert into "?course_group_enrollments/i, parties: 2 });
    const call = { token: admin.token, tenant: admin.subdomain };
    const [deleted, linked] = await Promise.all([
      requestWithD1(barrier.db, `/t/groups/${group.id}`, { ...call, method: "DELETE" }),
      requestWithD1(barrier.db, `/t/courses/${tree.courseId}/group-enrollments`, { ...call, body: { group_id: group.id } }),
    ]);
    expect(barrier.stats.releases).toEqual([2]);
    const [row] = await db().select().from(schema.groups).where(eq(schema.groups.id, group.id));
    const links = await db().select().from(schema.courseGroupEnrollments).where(eq(schema.courseGroupEnrollments.groupId, group.id));
    const members = await db().select().from(schema.groupMembers).where(eq(schema.groupMembers.groupId, group.id));
    if (deleted.status === 200) {
      expect(linked.status).toBe(404);
      expect(links).toEqual([]);
      expect(members).toEqual([]);
      expect(row!.deletedAt).not.toBeNull();
    } else {
      expect([deleted.status, deleted.body.error, linked.status]).toEqual([409, "group_has_course_enrollments", 201]);
      expect(links).toHaveLength(1);
      expect(members).toHaveLength(1);
      expect(row!.deletedAt).toBeNull();
    }
  });
});

describe("race: two curators assigned to one group at once", () => {
  it("the group ends with exactly one curator row, the one of the last write", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const curators = [await createUser(school.id, { role: "curator" }), await createUser(school.id, { role: "curator" })];
    const barrier = barrierD1(await schoolD1(school.id), { held: /insert into "?group_curators/i, parties: 2 });
    const results = await Promise.all(
      curators.map((curator) =>
        requestWithD1(barrier.db, `/t/groups/${group.id}/curator`, { method: "PUT", token: admin.token, tenant: admin.subdomain, body: { curator_id: curator.id } }),
      ),
    );
    expect(barrier.stats.releases).toEqual([2]);
    expect(results.map((res) => res.status)).toEqual([200, 200]);
    const rows = await db().select().from(schema.groupCurators).where(eq(schema.groupCurators.groupId, group.id));
    expect(rows).toHaveLength(1);
    expect(curators.map((curator) => curator.id)).toContain(rows[0]!.curatorId);
  });
});
