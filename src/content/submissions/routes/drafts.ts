import { createArea } from "../../../core/http/area";
import { ok, okResponse } from "../../../core/http/envelope";
import { jsonBody, optionalJsonBody } from "../../../core/http/fields";
import { gates } from "../../../core/http/gates";
import { IdParams } from "../../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../../core/http/route";
import { mediaErrors } from "../../../platform/media/errors";
import { assignmentsErrors as e } from "../../assignments/errors";
import { coursesErrors } from "../../courses/errors";
import { scheduleErrors } from "../../schedule/errors";
// Registers what submissions tell the course tree (assignment_ref completion) and campaign audiences.
import "../audience";
import { createSubmission } from "../create-service";
import "../refs";
import * as s from "../schemas";
import { submitSubmission, updateSubmission } from "../submission-service";

/** A student's submission: create-or-return the draft (JSON or files), edit it, submit it. */
export const draftRoutesPart = createArea();

const tags = ["Submissions"];

const jsonCreate = optionalJsonBody(s.CreateSubmissionBody);

const createSubmissionRoute = defineRoute({
  method: "post",
  path: "/t/assignments/{id}/submissions",
  audit: { none: "a student's own submission draft (self-service)" },
  gate: gates.student(),
  tags,
  summary: "Create the student's draft (201), or get back their current attempt unchanged (200); files by id (JSON) or as file parts (multipart)",
  description:
    "JSON `{attachment_ids}` names the student's own confirmed media assets; a `multipart/form-data` body carries 1 to 5 file parts named " +
    "`attachments`, each stored as a media asset of the school (kind from its content, the school's quota counted). A latest attempt in " +
    "draft, submitted or accepted is answered as it is (files sent are not stored); after a rejection the next attempt starts, up to max_attempts.",
  request: {
    params: IdParams,
    body: {
      required: false,
      content: { ...jsonCreate.body.content, "multipart/form-data": { schema: s.CREATE_SUBMISSION_FORM } },
    },
  },
  failures: [
    e.ASSIGNMENT_NOT_FOUND,
    e.STUDENT_NOT_IN_TARGETED_GROUP,
    scheduleErrors.WINDOW_CLOSED,
    e.MAX_ATTEMPTS_REACHED,
    coursesErrors.SEQUENTIAL_ORDER_REQUIRED,
    e.ATTACHMENT_NOT_IN_TENANT,
    mediaErrors.OVERSIZE_CAP,
    mediaErrors.STORAGE_QUOTA_EXCEEDED,
  ],
  responses: { 200: okResponse(s.SubmissionObject, "The student's current attempt, unchanged"), 201: okResponse(s.SubmissionObject, "A new draft") },
});

draftRoutesPart.openapi(createSubmissionRoute, async (c) => {
  // The JSON validator checks a JSON body and hands a form `{}`; the form's documented schema is not zod, which hides the type.
  const body = c.req.valid("json" as never) as s.CreateSubmissionBody;
  const { submission, created } = await createSubmission(tenantCtx(c), { assignmentId: c.req.valid("param").id, body, request: c.req.raw });
  return created ? ok(c, submission, 201) : ok(c, submission, 200);
});

const updateSubmissionRoute = defineRoute({
  method: "patch",
  path: "/t/submissions/{id}",
  audit: { none: "a student editing their own draft (self-service)" },
  gate: gates.member,
  tags,
  summary: "Change the text or files of the caller's draft",
  request: { params: IdParams, ...jsonBody(s.UpdateSubmissionBody) },
  failures: [e.SUBMISSION_NOT_FOUND, e.SUBMISSION_NOT_DRAFT, e.ATTACHMENT_NOT_IN_TENANT],
  responses: { 200: okResponse(s.SubmissionObject) },
});

draftRoutesPart.openapi(updateSubmissionRoute, async (c) => ok(c, await updateSubmission(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));

const submitSubmissionRoute = defineRoute({
  method: "post",
  path: "/t/submissions/{id}/submit",
  audit: { none: "a student handing in their own submission (self-service)" },
  gate: gates.member,
  tags,
  summary: "Hand in the caller's draft (an empty one too); completes the assignment's blocks in the student's courses",
  request: { params: IdParams },
  failures: [e.SUBMISSION_NOT_FOUND, e.SUBMISSION_NOT_DRAFT, scheduleErrors.WINDOW_CLOSED, coursesErrors.SEQUENTIAL_ORDER_REQUIRED],
  responses: { 200: okResponse(s.SubmissionObject) },
});

draftRoutesPart.openapi(submitSubmissionRoute, async (c) => ok(c, await submitSubmission(tenantCtx(c), { id: c.req.valid("param").id })));
