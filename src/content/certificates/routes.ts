import { z } from "@hono/zod-openapi";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { certificatesErrors as e } from "./errors";
import { certificatePdf } from "./pdf-service";
import * as s from "./schemas";
import { courseCertificates, getCertificate, getCertificateRule, issueMissing, myCertificates, putCertificateRule, revokeCertificate } from "./service";

/** Certificates in a school (05 section 4, docs/decisions/certificates.md); the public check is ./public-routes.ts. */
export const certificateRoutes = createArea();

const tags = ["Certificates"];
const manageCourses = { gate: gates.permission("can_manage_courses"), deny: "forbidden" } as const;

const getRuleRoute = defineRoute({
  method: "get",
  path: "/t/courses/{id}/certificate",
  ...manageCourses,
  tags,
  summary: "The course's certificate rule (enabled: false when none is set)",
  request: { params: IdParams },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.CertificateRule) },
});
certificateRoutes.openapi(getRuleRoute, async (c) => ok(c, await getCertificateRule(tenantCtx(c), { courseId: c.req.valid("param").id })));

const putRuleRoute = defineRoute({
  method: "put",
  path: "/t/courses/{id}/certificate",
  ...manageCourses,
  tags,
  summary: "Set the course's certificate rule; certificates are issued from then on as students complete it",
  description: "Students who completed before the rule was enabled get theirs through POST /t/courses/{id}/certificates/issue-missing.",
  request: { params: IdParams, ...jsonBody(s.CertificateRuleBody) },
  failures: [e.INVALID_EXAM_ID, e.COURSE_NOT_FOUND],
  audit: { none: "course configuration; 05 section 6 lists only the revocation among certificate changes" },
  responses: { 200: okResponse(s.CertificateRule) },
});
certificateRoutes.openapi(putRuleRoute, async (c) =>
  ok(c, await putCertificateRule(tenantCtx(c), { courseId: c.req.valid("param").id, body: c.req.valid("json") })),
);

const issueMissingRoute = defineRoute({
  method: "post",
  path: "/t/courses/{id}/certificates/issue-missing",
  ...manageCourses,
  tags,
  summary: "Issue the certificate to every student who already qualifies and has none; data {issued}",
  request: { params: IdParams },
  failures: [e.COURSE_NOT_FOUND],
  audit: { none: "issuance follows from completions the log does not record either; each certificate is its own record" },
  responses: { 200: okResponse(s.IssueMissingResult) },
});
certificateRoutes.openapi(issueMissingRoute, async (c) => ok(c, await issueMissing(tenantCtx(c), { courseId: c.req.valid("param").id })));

const courseListRoute = defineRoute({
  method: "get",
  path: "/t/courses/{id}/certificates",
  ...manageCourses,
  tags,
  summary: "The course's certificates, newest first (a restricted curator: their own students')",
  request: { params: IdParams, query: s.CertificatePageQuery },
  failures: [e.COURSE_NOT_FOUND],
  responses: { 200: okResponse(s.CertificatePage) },
});
certificateRoutes.openapi(courseListRoute, async (c) =>
  ok(c, await courseCertificates(tenantCtx(c), { courseId: c.req.valid("param").id, ...c.req.valid("query") })),
);

const mineRoute = defineRoute({
  method: "get",
  path: "/t/students/me/certificates",
  gate: gates.student(),
  tags,
  summary: "The caller's certificates, newest first",
  responses: { 200: okResponse(s.CertificateList) },
});
certificateRoutes.openapi(mineRoute, async (c) => ok(c, await myCertificates(tenantCtx(c))));

const detailRoute = defineRoute({
  method: "get",
  path: "/t/certificates/{id}",
  gate: gates.member,
  tags,
  summary: "A certificate, with its signed token",
  description: "The holder, or staff within their scope; anyone else gets 404 certificate_not_found.",
  request: { params: IdParams },
  failures: [e.CERTIFICATE_NOT_FOUND],
  responses: { 200: okResponse(s.Certificate) },
});
certificateRoutes.openapi(detailRoute, async (c) => ok(c, await getCertificate(tenantCtx(c), { id: c.req.valid("param").id })));

const pdfRoute = defineRoute({
  method: "get",
  path: "/t/certificates/{id}/pdf",
  gate: gates.member,
  tags,
  summary: "The certificate as an A4 landscape PDF (rendered once, then served from storage)",
  description: "The holder, or staff within their scope; anyone else gets 404 certificate_not_found.",
  request: { params: IdParams },
  failures: [e.CERTIFICATE_NOT_FOUND],
  responses: { 200: { description: "The PDF", content: { "application/pdf": { schema: z.string().openapi({ format: "binary" }) } } } },
});
certificateRoutes.openapi(pdfRoute, async (c) => certificatePdf(tenantCtx(c), { id: c.req.valid("param").id }));

const revokeRoute = defineRoute({
  method: "post",
  path: "/t/certificates/{id}/revoke",
  ...manageCourses,
  tags,
  summary: "Revoke a certificate (verify then answers valid: false); no push",
  request: { params: IdParams, ...jsonBody(s.RevokeBody) },
  failures: [e.CERTIFICATE_NOT_FOUND, e.ALREADY_REVOKED],
  audit: { actions: ["certificate.revoked"] },
  responses: { 200: okResponse(s.Certificate) },
});
certificateRoutes.openapi(revokeRoute, async (c) => ok(c, await revokeCertificate(tenantCtx(c), { id: c.req.valid("param").id, reason: c.req.valid("json").reason })));
