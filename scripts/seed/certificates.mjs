import { upsert } from "../lib/sql.mjs";
import { COURSE } from "./courses.mjs";
import { DAY_MS, DEMO, id } from "./demo.mjs";

/**
 * The demo course issues certificates, and Lola (student3), who completed it, has hers
 * (docs/decisions/certificates.md). A fixed code so the README and the tour can verify it,
 * 0DEM-0000-CERT-0041, chosen because its SHA-256 lands on the demo school's shard (DB_SCHOOLS_0).
 */
export const DEMO_CERTIFICATE = { id: id(0xce1), code: "0DEM0000CERT0041" };

export function certificates({ now }) {
  const lola = DEMO.students[2];
  return [
    upsert(
      "certificate_rules",
      { tenant_id: DEMO.tenantId, course_id: COURSE.id, enabled: 1, title: null, require_exam_id: null, min_exam_pct: null, updated_by: DEMO.admin.id, updated_at: now },
      { key: ["tenant_id", "course_id"], restore: ["enabled"], touch: "updated_at" },
    ),
    `INSERT INTO "certificates" ("id", "tenant_id", "code", "course_id", "student_id", "title", "course_title", "holder_first_name", "holder_last_name", "school_name", "issuer", "issued_at", "created_at")
  SELECT '${DEMO_CERTIFICATE.id}', '${DEMO.tenantId}', '${DEMO_CERTIFICATE.code}', c."id", '${lola.id}', c."title", c."title", '${lola.firstName}', '${lola.lastName}', 'Demo School', '${DEMO.subdomain}', ${now - DAY_MS}, ${now - DAY_MS}
  FROM "courses" c WHERE c."id" = '${COURSE.id}'
  ON CONFLICT DO NOTHING;`,
  ];
}
