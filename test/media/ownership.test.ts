import { describe, expect, it } from "vitest";
import { failure } from "../helpers/http";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, signedIn, type Member } from "../helpers/users";
import { insertAssignment } from "../content/assignments/helpers";
import { assignmentCourse, postFiles, submissionSchool } from "../content/submissions/helpers";
import { confirm, confirmedAsset, download, FIXTURES, getAsset, uploaded } from "./helpers";

/**
 * GET /t/media/:id and POST /t/media/:id/confirm follow ownership (docs/decisions/media.md, "Media"):
 * a student only their own uploads; admins and curators with can_manage_groups every asset of the
 * school; a restricted curator their own uploads, files uploaded by staff, and their students'.
 * Anything else answers exactly like a missing asset.
 */

const NOT_FOUND = { status: 404, error: "media_not_found" };

/** A file handed in by `student` with a submission; returns its asset id. */
async function submissionFile(student: Member, assignmentId: string) {
  const res = await postFiles(student, assignmentId, [{ name: "essay.pdf", bytes: FIXTURES.pdf, type: "application/pdf" }]);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body.data.attachments as { media_asset_id: string }[])[0]!.media_asset_id;
}

describe("media by id follows ownership", () => {
  it("a student cannot read another student's submission file by id (404 media_not_found, like a missing id)", async () => {
    const { school, student: owner, assignment } = await submissionSchool();
    const other = await signedIn(school, { role: "student" });
    const fileId = await submissionFile(owner, assignment.id);
    expect(failure(await getAsset(other, fileId))).toEqual(NOT_FOUND);
    // The owner still reads it, with a working link.
    const own = await getAsset(owner, fileId);
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ id: fileId, status: "confirmed", filename: "essay.pdf" });
    expect((await download(own.body.data.presigned_url)).bytes).toEqual(FIXTURES.pdf);
  });

  it("a student cannot read an admin's content asset by id", async () => {
    const { admin, student } = await submissionSchool();
    const asset = await confirmedAsset(admin, "image", FIXTURES.png);
    expect(failure(await getAsset(student, asset.id))).toEqual(NOT_FOUND);
  });

  it("an admin's file reaches an enrolled student only as signed links inside a lesson block and an assignment attachment, not by id", async () => {
    const { school, admin, student } = await submissionSchool();
    const asset = await confirmedAsset(admin, "image", FIXTURES.png);
    const assignment = await insertAssignment(school.id);
    const tree = await assignmentCourse(school.id, assignment.id, [student.id]);
    const lessonId = tree.lessonIds[0]!;
    expect((await as(admin, `/t/lessons/${lessonId}/blocks`, { body: { type: "image", payload: { media_asset_id: asset.id, caption: "Map" } } })).status).toBe(201);
    const attached = await as(admin, `/t/assignments/${assignment.id}/attachments`, { body: { media_asset_id: asset.id } });
    expect(attached.status).toBe(201);

    expect(failure(await getAsset(student, asset.id))).toEqual(NOT_FOUND);
    const blocks = await as(student, `/t/lessons/${lessonId}/blocks`);
    expect(blocks.status).toBe(200);
    const image = (blocks.body.data.blocks as { type: string; url: string | null }[]).find((block) => block.type === "image")!;
    expect((await download(image.url!)).bytes).toEqual(FIXTURES.png);
    const link = await as(student, `/t/assignments/${assignment.id}/attachments/${attached.body.data.id}/download`);
    expect(link.status).toBe(200);
    expect((await download(link.body.data as string)).bytes).toEqual(FIXTURES.png);
  });

  it("a student cannot confirm, nor read, the admin's pending upload; the admin then confirms it", async () => {
    const { admin, student } = await submissionSchool();
    const ticket = await uploaded(admin, "image", FIXTURES.png, { mime: "image/png" });
    expect(failure(await confirm(student, ticket.media_asset_id))).toEqual(NOT_FOUND);
    expect(failure(await getAsset(student, ticket.media_asset_id))).toEqual(NOT_FOUND);
    // Still pending: the student's attempt changed nothing.
    expect(failure(await getAsset(admin, ticket.media_asset_id))).toEqual({ status: 409, error: "media_not_confirmed" });
    const confirmed = await confirm(admin, ticket.media_asset_id);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toMatchObject({ id: ticket.media_asset_id, status: "confirmed" });
  });

  it("a student cannot confirm another student's pending upload", async () => {
    const { school, student: owner } = await submissionSchool();
    const other = await signedIn(school, { role: "student" });
    const ticket = await uploaded(owner, "image", FIXTURES.png, { mime: "image/png" });
    expect(failure(await confirm(other, ticket.media_asset_id))).toEqual(NOT_FOUND);
    const own = await confirm(owner, ticket.media_asset_id);
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({ id: ticket.media_asset_id, status: "confirmed" });
  });

  it("an admin and a curator with can_manage_groups read a student's submission file and a curator's upload; another student reads neither", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    const other = await signedIn(school, { role: "student" });
    const curator = await signedIn(school, curatorWith({}));
    const groupsCurator = await signedIn(school, curatorWith({ can_manage_groups: true }));
    const fileId = await submissionFile(student, assignment.id);
    const curatorAsset = await confirmedAsset(curator, "image", FIXTURES.png);
    for (const id of [fileId, curatorAsset.id]) {
      for (const reader of [admin, groupsCurator]) {
        const res = await getAsset(reader, id);
        expect(res.status, `${reader.role} ${id}`).toBe(200);
        expect(res.body.data).toMatchObject({ id, status: "confirmed" });
      }
      expect(failure(await getAsset(other, id))).toEqual(NOT_FOUND);
    }
  });

  it("a restricted curator reads their students' files (individual or by group), staff uploads and their own; not other students' files", async () => {
    const { school, admin, student: individual, assignment } = await submissionSchool();
    const curator = await signedIn(school, curatorWith({}));
    const member = await signedIn(school, { role: "student" });
    const outsider = await signedIn(school, { role: "student" });
    await assignIndividualCurator(individual.id, curator.id);
    const group = await createGroup(school.id);
    await addMember(group, member.id);
    await addGroupCurator(group, curator.id);

    const individualFile = await submissionFile(individual, assignment.id);
    const memberFile = await submissionFile(member, assignment.id);
    const outsiderFile = await submissionFile(outsider, assignment.id);
    const adminAsset = await confirmedAsset(admin, "image", FIXTURES.png);
    const ownAsset = await confirmedAsset(curator, "pdf", FIXTURES.pdf);

    for (const id of [individualFile, memberFile, adminAsset.id, ownAsset.id]) {
      const res = await getAsset(curator, id);
      expect(res.status, id).toBe(200);
      expect(res.body.data).toMatchObject({ id, status: "confirmed" });
    }
    expect(failure(await getAsset(curator, outsiderFile))).toEqual(NOT_FOUND);
    // The outsider's pending upload can't be confirmed by the curator either.
    const pending = await uploaded(outsider, "image", FIXTURES.png, { mime: "image/png" });
    expect(failure(await confirm(curator, pending.media_asset_id))).toEqual(NOT_FOUND);
  });
});
