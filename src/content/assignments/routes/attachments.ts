import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { addAttachment, downloadAttachment, removeAttachment } from "../attachment-service";
// Registers the assignment_ref blocks' rules with the course tree and the campaign picker's option kind.
import "../audience-options";
import { assignmentsErrors as e } from "../errors";
import "../refs";
import * as s from "../schemas";

/** Files staff attach to an assignment, and their download links. */
export const attachmentRoutesPart = createArea();

const tags = ["Assignments"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "permission_denied" } as const;

const addAttachmentRoute = defineRoute({
  method: "post",
  path: "/t/assignments/{id}/attachments",
  ...manageCourses,
  tags,
  summary: "Attach a confirmed file of the school to an assignment",
  request: { params: IdParams, ...jsonBody(s.AddAttachmentBody) },
  failures: [e.ASSIGNMENT_NOT_FOUND, e.ATTACHMENT_NOT_IN_TENANT, e.ATTACHMENT_DUPLICATE],
  responses: { 201: okResponse(s.AttachmentObject) },
});

attachmentRoutesPart.openapi(addAttachmentRoute, async (c) => ok(c, await addAttachment(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") }), 201));

const removeAttachmentRoute = defineRoute({
  method: "delete",
  path: "/t/assignments/{id}/attachments/{attachmentId}",
  ...manageCourses,
  tags,
  summary: "Remove an attachment (the file stays in the school's media)",
  request: { params: s.AttachmentParams },
  failures: [e.ASSIGNMENT_NOT_FOUND, e.ATTACHMENT_NOT_FOUND],
  responses: { 204: { description: "Removed" } },
});

attachmentRoutesPart.openapi(removeAttachmentRoute, async (c) => {
  await removeAttachment(tenantCtx(c), c.req.valid("param"));
  return c.body(null, 204);
});

const downloadAttachmentRoute = defineRoute({
  method: "get",
  path: "/t/assignments/{id}/attachments/{attachmentId}/download",
  gate: gates.member,
  tags,
  summary: "A signed download link of an attachment: course managers, or a student reaching the assignment through a course they study",
  request: { params: s.AttachmentParams },
  failures: [e.ASSIGNMENT_NOT_FOUND, e.NOT_AUTHORIZED, e.ATTACHMENT_NOT_FOUND],
  responses: { 200: okResponse(s.DownloadLink) },
});

attachmentRoutesPart.openapi(downloadAttachmentRoute, async (c) => ok(c, await downloadAttachment(tenantCtx(c), c.req.valid("param"))));
