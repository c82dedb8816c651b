import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { storedImage } from "../../media/helpers";
import { insertAssignment, insertSubmission } from "./helpers";

/** What assignments give the course tree (assignment_ref blocks) and the campaign picker. */

describe("assignment_ref blocks", () => {
  it("are accepted for a live assignment of the school and refused (400 block_ref_not_found) for a deleted, unknown or foreign one", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { status: "draft" });
    const lessonId = tree.lessonIds[0]!;
    const create = (assignmentId: string) => as(admin, `/t/lessons/${lessonId}/blocks`, { body: { type: "assignment_ref", payload: { assignment_id: assignmentId } } });
    const live = await insertAssignment(school.id);
    const res = await create(live.id);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ type: "assignment_ref", payload: { assignment_id: live.id } });
    const deleted = await insertAssignment(school.id, { deleted: true });
    const foreign = await insertAssignment((await schoolWithAdmin()).school.id);
    for (const id of [deleted.id, unknownId(), foreign.id]) expect(failure(await create(id))).toEqual({ status: 400, error: "block_ref_not_found" });
    // Deleted through the API: a new block naming it is refused, and so is a PATCH onto it.
    expect((await as(admin, `/t/assignments/${live.id}`, { method: "DELETE" })).status).toBe(204);
    expect(failure(await create(live.id))).toEqual({ status: 400, error: "block_ref_not_found" });
    const other = await insertAssignment(school.id);
    const block = (await create(other.id)).body.data as { id: string };
    expect(failure(await as(admin, `/t/blocks/${block.id}`, { method: "PATCH", body: { payload: { assignment_id: live.id } } }))).toEqual({ status: 400, error: "block_ref_not_found" });
  });

  it("embed the assignment in the caller's view, light: no attachments; a student's latest attempt; nothing for a student it does not target or once deleted", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const assignment = await insertAssignment(school.id, { title: "Essay", maxScoreHundredths: 5050, maxAttempts: 3, groups: [group.id] });
    expect((await as(admin, `/t/assignments/${assignment.id}/attachments`, { body: { media_asset_id: await storedImage(school.id) } })).status).toBe(201);
    const tree = await insertCourseTree(school.id, { blockType: "assignment_ref", payload: { assignment_id: assignment.id }, refId: assignment.id });
    const student = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 1 });
    const blockId = tree.blockIds[0]!;
    const lessonId = tree.lessonIds[0]!;
    const embedded = async (member: typeof admin, path: string) => {
      const res = await as(member, path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      const block = path.startsWith("/t/blocks") ? res.body.data : (res.body.data.blocks ?? res.body.data)[0];
      return block.assignment;
    };
    const paths = [`/t/blocks/${blockId}`, `/t/lessons/${lessonId}/blocks`, `/t/lessons/${lessonId}`];

    const staffDetail = (await as(admin, `/t/assignments/${assignment.id}`)).body.data;
    expect(staffDetail.attachments).toHaveLength(1);
    for (const path of paths) expect(await embedded(admin, path)).toEqual({ ...staffDetail, attachments: [] });

    for (const path of paths) expect({ path, assignment: await embedded(student, path) }).toEqual({ path, assignment: null });
    await addMember(group, student.id);
    await insertSubmission(school.id, assignment.id, student.id, { status: "accepted", scoreHundredths: 4000 });
    const studentDetail = (await as(student, `/t/assignments/${assignment.id}`)).body.data;
    expect(studentDetail).toMatchObject({ max_score: "50.50", max_attempts: 3, my_submission_status: "accepted", my_submission_score: "40.00" });
    for (const path of paths) expect(await embedded(student, path)).toEqual({ ...studentDetail, attachments: [] });

    expect((await as(admin, `/t/assignments/${assignment.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await embedded(admin, `/t/blocks/${blockId}`)).toBeNull();
    expect(await embedded(student, `/t/lessons/${lessonId}`)).toBeNull();
  });
});

describe("the campaign picker's assignment options", () => {
  it("every live assignment of the school, subtitled with its maximum score and attempts", async () => {
    const { school, admin } = await schoolWithAdmin();
    const essay = await insertAssignment(school.id, { title: "Essay", maxScoreHundredths: 5050, maxAttempts: 3 });
    const lab = await insertAssignment(school.id, { title: "Lab", maxAttempts: 1 });
    const open = await insertAssignment(school.id, { title: "Open" });
    await insertAssignment(school.id, { title: "Gone", deleted: true });
    await insertAssignment((await schoolWithAdmin()).school.id, { title: "Foreign" });
    const res = await as(admin, "/t/notifications/admin/audience/options?kind=assignment");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: "assignment", total: 3 });
    expect(res.body.data.options).toEqual([
      { id: essay.id, label: "Essay", subtitle: "max 50.50 · 3 attempts" },
      { id: lab.id, label: "Lab", subtitle: "max 100.00 · 1 attempt" },
      { id: open.id, label: "Open", subtitle: "max 100.00 · unlimited attempts" },
    ]);
    expect((await as(admin, "/t/notifications/admin/audience/options?kind=assignment&q=lab")).body.data.options).toMatchObject([{ id: lab.id }]);
  });
});
