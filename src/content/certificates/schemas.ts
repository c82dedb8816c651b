import { z } from "@hono/zod-openapi";
import { plainText, uuidField } from "../../core/http/fields";
import { pageQuery } from "../../core/http/pagination";

export const CertificateRuleBody = z
  .object({
    enabled: z.boolean(),
    title: plainText({ min: 1, max: 200 }).nullable().optional().openapi({ description: "1-200; null or absent: the course title" }),
    require_exam_id: uuidField.nullable().optional(),
    min_exam_pct: z.number().int().min(0).max(100).nullable().optional(),
  })
  .openapi("CertificateRuleRequest");

export type CertificateRuleBody = z.infer<typeof CertificateRuleBody>;

export const CertificateRule = z
  .object({
    course_id: z.string(),
    enabled: z.boolean(),
    title: z.string(),
    require_exam_id: z.string().nullable(),
    min_exam_pct: z.number().int().nullable(),
    updated_at: z.string().nullable(),
  })
  .openapi("CertificateRule");

export const Certificate = z
  .object({
    id: z.string(),
    code: z.string().openapi({ example: "1ABC-DEF2-GHJK-MNPQ" }),
    course_id: z.string(),
    course_title: z.string(),
    title: z.string(),
    student_id: z.string(),
    holder_name: z.string(),
    school_name: z.string(),
    issued_at: z.string(),
    status: z.enum(["valid", "revoked"]),
    revoked_at: z.string().nullable(),
    revoke_reason: z.string().nullable(),
    verify_url: z.string(),
    pdf_url: z.string(),
    token: z.string().openapi({ description: "compact JWS (EdDSA, Ed25519); keys at GET /api/v1/.well-known/jwks.json" }),
  })
  .openapi("Certificate");

export const CertificateList = z.object({ certificates: z.array(Certificate) }).openapi("CertificateList");
export const CertificatePage = z
  .object({ certificates: z.array(Certificate), total: z.number().int(), page: z.number().int(), limit: z.number().int() })
  .openapi("CertificatePage");

export const CertificatePageQuery = z.object(pageQuery({ maxLimit: 100, defaultLimit: 50 }));

export const IssueMissingResult = z.object({ issued: z.number().int() }).openapi("CertificatesIssued");

export const RevokeBody = z.object({ reason: plainText({ min: 1, max: 500, multiline: true }) }).openapi("RevokeCertificateRequest");

// Any text: a malformed code answers the same 404 as an unknown one (05 section 4), never a 400.
export const CodeParams = z.object({ code: z.string().openapi({ example: "1ABC-DEF2-GHJK-MNPQ" }) });

export const Verification = z
  .object({
    valid: z.boolean(),
    status: z.enum(["valid", "revoked"]),
    code: z.string(),
    holder_name: z.string().openapi({ description: "first name and the initial of the last name" }),
    course_title: z.string(),
    title: z.string(),
    school_name: z.string(),
    issued_at: z.string(),
    revoked_at: z.string().nullable(),
  })
  .openapi("CertificateVerification");

export const Jwks = z
  .object({ keys: z.array(z.object({ kty: z.string(), crv: z.string(), x: z.string(), kid: z.string(), alg: z.string(), use: z.string() })) })
  .openapi("JsonWebKeySet");
