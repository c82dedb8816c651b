import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id, tenantRef, updatedAt } from "../columns";

/**
 * A course's certificate rule (05 section 4). No row is a disabled rule. `title` NULL is the
 * course's title at issuance; `min_exam_pct` is whole percent.
 */
export const certificateRules = sqliteTable(
  "certificate_rules",
  {
    tenantId: tenantRef(),
    courseId: text("course_id").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    title: text("title"),
    requireExamId: text("require_exam_id"),
    minExamPct: integer("min_exam_pct"),
    updatedBy: text("updated_by"),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.courseId] })],
);

/**
 * An issued certificate. What it certifies (holder, course, title, school, issuer) is copied at
 * issuance, so a later rename changes neither the document nor its signature. `code` is the
 * canonical 16 characters (no dashes); it is unique over the shard because the public verify route
 * finds it without knowing the school (docs/decisions/certificates.md, "Codes and the shard").
 */
export const certificates = sqliteTable(
  "certificates",
  {
    id: id(),
    tenantId: tenantRef(),
    code: text("code").notNull(),
    courseId: text("course_id").notNull(),
    studentId: text("student_id").notNull(),
    title: text("title").notNull(),
    courseTitle: text("course_title").notNull(),
    holderFirstName: text("holder_first_name").notNull(),
    holderLastName: text("holder_last_name").notNull(),
    schoolName: text("school_name").notNull(),
    issuer: text("issuer").notNull(),
    issuedAt: integer("issued_at").notNull(),
    revokedAt: integer("revoked_at"),
    revokeReason: text("revoke_reason"),
    revokedBy: text("revoked_by"),
    pdfKey: text("pdf_key"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("certificates_one_per_course").on(t.tenantId, t.studentId, t.courseId),
    index("certificates_tenant_course").on(t.tenantId, t.courseId, t.issuedAt),
    uniqueIndex("certificates_code").on(t.code),
  ],
);
