import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment, MEDIA_LINK } from "../../helpers/courses";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { storedImage } from "../../media/helpers";
import { attachmentRows, getAssignment, insertAssignment } from "./helpers";

const attach = (member: Member, id: string, body: unknown) => as(member, `/t/assignments/${id}/attachments`, { body });
const detach = (member: Member, id: string, attachmentId: string) => as(member, `/t/assignments/${id}/attachments/${attachmentId}`, { method: "DELETE" });
const download = (member: Member, id: string, attachmentId: string) => as(member, `/t/assignments/${id}/attachments/${attachmentId}/download`);

async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const assignment = await insertAssignment(school.id);
  return { school, admin, assignment };
}

describe("POST /t/assignments/:id/attachments", () => {
  it("attaches confirmed files of any kind: 201 with the file's details; positions append or are stored as given; the detail lists them in order", async () => {
    const { school, admin, assignment } = await setup();
    const image = await storedImage(school.id);
    const pdf = await storedImage(school.id, { kind: "pdf", mime: "application/pdf" });
    const doc = await storedImage(school.id, { kind: "document", mime: "application/msword" });
    const first = await attach(admin, assignment.id, { media_asset_id: image });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({ id: expect.any(String), media_asset_id: image, position: 0, filename: "picture.png", size: 166, kind: "image", mime: "image/png" });
    const second = await attach(admin, assignment.id, { media_asset_id: pdf.toUpperCase() });
    expect(second.body.data).toMatchObject({ media_asset_id: pdf, position: 1, kind: "pdf", mime: "application/pdf" });
    const placed = await attach(admin, assignment.id, { media_asset_id: doc, position: 0 });
    expect(placed.body.data).toMatchObject({ media_asset_id: doc, position: 0, kind: "document" });
    const detail = await getAssignment(admin, assignment.id);
    expect((detail.body.data.attachments as { id: string }[]).map((row) => row.id)).toEqual(
      [first.body.data, placed.body.data].sort((a, b) => (a.id < b.id ? -1 : 1)).map((row) => row.id).concat(second.body.data.id),
    );
    expect(detail.body.data.attachments[2]).toEqual(second.body.data);
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect((await attach(curator, assignment.id, { media_asset_id: await storedImage(school.id) })).body.data.position).toBe(2);
  });

  it("400 attachment_not_in_tenant: unknown, pending, failed or another school's file; nothing stored", async () => {
    const { school, admin, assignment } = await setup();
    const foreignSchool = (await schoolWithAdmin()).school;
    for (const asset of [unknownId(), await storedImage(school.id, { status: "pending" }), await storedImage(school.id, { status: "failed" }), await storedImage(foreignSchool.id)]) {
      expect(failure(await attach(admin, assignment.id, { media_asset_id: asset }))).toEqual({ status: 400, error: "attachment_not_in_tenant" });
    }
    expect(await attachmentRows(assignment.id)).toEqual([]);
  });

  it("400 invalid_request_body for a bad body", async () => {
    const { school, admin, assignment } = await setup();
    const image = await storedImage(school.id);
    for (const body of [{}, { media_asset_id: "x" }, { media_asset_id: image, position: -1 }, { media_asset_id: image, position: 1.5 }, { media_asset_id: image, position: "1" }, { media_asset_id: image, extra: 1 }]) {
      expect({ body, ...failure(await attach(admin, assignment.id, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
  });

  it("409 attachment_duplicate for a file already attached; concurrent posts of one file store one row", async () => {
    const { school, admin, assignment } = await setup();
    const image = await storedImage(school.id);
    expect((await attach(admin, assignment.id, { media_asset_id: image })).status).toBe(201);
    expect(failure(await attach(admin, assignment.id, { media_asset_id: image, position: 4 }))).toEqual({ status: 409, error: "attachment_duplicate" });
    // The same file on another assignment is fine.
    const other = await insertAssignment(school.id);
    expect((await attach(admin, other.id, { media_asset_id: image })).status).toBe(201);

    const racing = await storedImage(school.id);
    const results = await Promise.all(Array.from({ length: 6 }, () => attach(admin, assignment.id, { media_asset_id: racing })));
    expect(results.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const res of results.filter((r) => r.status === 409)) expect(failure(res)).toEqual({ status: 409, error: "attachment_duplicate" });
    expect((await attachmentRows(assignment.id)).filter((row) => row.mediaAssetId === racing)).toHaveLength(1);
  });

  it("404 assignment_not_found for an unknown, deleted or another school's assignment (checked before the file)", async () => {
    const { school, admin } = await setup();
    const deleted = await insertAssignment(school.id, { deleted: true });
    const foreign = await insertAssignment((await schoolWithAdmin()).school.id);
    const image = await storedImage(school.id);
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await attach(admin, id, { media_asset_id: image }))).toEqual({ status: 404, error: "assignment_not_found" });
      expect(failure(await attach(admin, id, { media_asset_id: unknownId() }))).toEqual({ status: 404, error: "assignment_not_found" });
    }
    expect(await attachmentRows(foreign.id)).toEqual([]);
  });

  it("403 permission_denied below can_manage_courses", async () => {
    const { school, assignment } = await setup();
    const image = await storedImage(school.id);
    for (const member of [await signedIn(school, { role: "student" }), await signedIn(school, curatorWith({ can_manage_students: true }))]) {
      expect(failure(await attach(member, assignment.id, { media_asset_id: image }))).toEqual({ status: 403, error: "permission_denied" });
    }
  });
});

describe("DELETE /t/assignments/:id/attachments/:attachmentId", () => {
  it("removes the attachment: 204; the file stays and may be attached again", async () => {
    const { school, admin, assignment } = await setup();
    const image = await storedImage(school.id);
    const added = (await attach(admin, assignment.id, { media_asset_id: image })).body.data;
    const res = await detach(admin, assignment.id, added.id);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await attachmentRows(assignment.id)).toEqual([]);
    expect(failure(await detach(admin, assignment.id, added.id))).toEqual({ status: 404, error: "attachment_not_found" });
    expect((await attach(admin, assignment.id, { media_asset_id: image })).status).toBe(201);
  });

  it("404 assignment_not_found for a missing, deleted or foreign assignment; 404 attachment_not_found for another assignment's attachment; 400 invalid_id_format", async () => {
    const { school, admin, assignment } = await setup();
    const other = await insertAssignment(school.id);
    const added = (await attach(admin, other.id, { media_asset_id: await storedImage(school.id) })).body.data;
    expect(failure(await detach(admin, assignment.id, added.id))).toEqual({ status: 404, error: "attachment_not_found" });
    expect(failure(await detach(admin, assignment.id, unknownId()))).toEqual({ status: 404, error: "attachment_not_found" });
    expect(failure(await detach(admin, unknownId(), added.id))).toEqual({ status: 404, error: "assignment_not_found" });
    const foreignSchool = await schoolWithAdmin();
    const foreign = await insertAssignment(foreignSchool.school.id);
    const foreignAttachment = (await attach(foreignSchool.admin, foreign.id, { media_asset_id: await storedImage(foreignSchool.school.id) })).body.data;
    expect(failure(await detach(admin, foreign.id, foreignAttachment.id))).toEqual({ status: 404, error: "assignment_not_found" });
    expect(await attachmentRows(foreign.id)).toHaveLength(1);
    expect(await attachmentRows(other.id)).toHaveLength(1);
    expect(failure(await detach(admin, assignment.id, "bad"))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await detach(admin, "bad", added.id))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("GET /t/assignments/:id/attachments/:attachmentId/download", () => {
  async function inCourse(options: { groups?: string[] } = {}) {
    const { school, admin } = await schoolWithAdmin();
    const assignment = await insertAssignment(school.id, options);
    const image = await storedImage(school.id);
    const attachment = (await attach(admin, assignment.id, { media_asset_id: image })).body.data as { id: string };
    const tree = await insertCourseTree(school.id, { blockType: "assignment_ref", payload: { assignment_id: assignment.id }, refId: assignment.id });
    const enrolled = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, enrolled.id, { totalBlocks: 1 });
    return { school, admin, assignment, image, attachment, tree, enrolled };
  }

  it("managers and an enrolled student get a fresh signed link", async () => {
    const { school, admin, assignment, image, attachment, enrolled } = await inCourse();
    for (const member of [admin, await signedIn(school, curatorWith({ can_manage_courses: true })), enrolled]) {
      const res = await download(member, assignment.id, attachment.id);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatch(MEDIA_LINK(image));
    }
  });

  it("403 not_authorized: a student not enrolled, any student for a standalone assignment, a curator without can_manage_courses", async () => {
    const { school, admin, assignment, attachment } = await inCourse();
    const outsider = await signedIn(school, { role: "student" });
    expect(failure(await download(outsider, assignment.id, attachment.id))).toEqual({ status: 403, error: "not_authorized" });
    const curator = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_groups: true }));
    expect(failure(await download(curator, assignment.id, attachment.id))).toEqual({ status: 403, error: "not_authorized" });
    const standalone = await insertAssignment(school.id);
    const file = (await attach(admin, standalone.id, { media_asset_id: await storedImage(school.id) })).body.data as { id: string };
    const student = await signedIn(school, { role: "student" });
    expect(failure(await download(student, standalone.id, file.id))).toEqual({ status: 403, error: "not_authorized" });
    expect((await download(admin, standalone.id, file.id)).status).toBe(200);
  });

  it("a student the assignment does not target: 404 assignment_not_found, even when enrolled", async () => {
    const targeted = await inCourseWithGroup();
    expect(failure(await download(targeted.enrolled, targeted.assignment.id, targeted.attachment.id))).toEqual({ status: 404, error: "assignment_not_found" });
    await addMember(targeted.group, targeted.enrolled.id);
    expect((await download(targeted.enrolled, targeted.assignment.id, targeted.attachment.id)).status).toBe(200);
  });

  async function inCourseWithGroup() {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const assignment = await insertAssignment(school.id, { groups: [group.id] });
    const attachment = (await attach(admin, assignment.id, { media_asset_id: await storedImage(school.id) })).body.data as { id: string };
    const tree = await insertCourseTree(school.id, { blockType: "assignment_ref", payload: { assignment_id: assignment.id }, refId: assignment.id });
    const enrolled = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, enrolled.id, { totalBlocks: 1 });
    return { school, admin, group, assignment, attachment, enrolled };
  }

  it("404 assignment_not_found for a missing, deleted or foreign assignment; 404 attachment_not_found for another assignment's file", async () => {
    const { school, admin, assignment, attachment, enrolled } = await inCourse();
    const other = await insertAssignment(school.id);
    expect(failure(await download(admin, other.id, attachment.id))).toEqual({ status: 404, error: "attachment_not_found" });
    expect(failure(await download(admin, assignment.id, unknownId()))).toEqual({ status: 404, error: "attachment_not_found" });
    expect(failure(await download(enrolled, assignment.id, unknownId()))).toEqual({ status: 404, error: "attachment_not_found" });
    expect(failure(await download(admin, unknownId(), attachment.id))).toEqual({ status: 404, error: "assignment_not_found" });
    const foreign = await inCourse();
    expect(failure(await download(admin, foreign.assignment.id, foreign.attachment.id))).toEqual({ status: 404, error: "assignment_not_found" });
    expect((await as(admin, `/t/assignments/${assignment.id}`, { method: "DELETE" })).status).toBe(204);
    expect(failure(await download(admin, assignment.id, attachment.id))).toEqual({ status: 404, error: "assignment_not_found" });
    expect(failure(await download(admin, "x", attachment.id))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});
