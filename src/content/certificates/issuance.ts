import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, type BatchItem } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import type { EventDefinition } from "../../platform/notifications/catalog";
import { enqueue } from "../../platform/notifications/enqueue";
import { uuidv7 } from "../../core/lib/ids";
import { contentContributor } from "../common/events";
import { newCode, newCodes } from "./code";
import { issuedWebhooks } from "./webhooks";

/**
 * Issuance (05 section 4, docs/decisions/certificates.md, "Issuance"): one INSERT … SELECT that
 * writes the certificate when the course's rule is enabled and the student meets its exam
 * condition, and the push, both in the batch of the event that completed the course. The unique
 * (tenant, student, course) index with ON CONFLICT DO NOTHING makes it once per student and course,
 * whichever of several concurrent completions commits first.
 */

export const CERTIFICATE_ISSUED: EventDefinition = {
  code: "certificate.issued",
  category: "course",
  name: "Certificate issued",
  description: "a student's course completion (or POST /t/courses/:id/certificates/issue-missing) issued their certificate; also when the student's own action completed the course",
  source: "domain_event",
  recipients: "student",
  aggregateType: "certificate",
  variables: ["course_title", "code"],
  defaultEnabled: true,
  defaultConfig: {},
  implemented: true,
  templates: {
    ru: { title: "Сертификат выдан", body: "Курс «{{course_title}}» пройден. Код сертификата: {{code}}." },
    en: { title: "Certificate issued", body: "You completed “{{course_title}}”. Certificate code: {{code}}." },
  },
};

/** The rule `r` of the course is on and the student `student` meets its exam condition. */
function qualifies(tenantId: string, student: SQL): SQL {
  return sql`r.enabled = 1 AND (r.require_exam_id IS NULL OR EXISTS (
      SELECT 1 FROM exam_attempts ea WHERE ${inSchool("ea", tenantId)} AND ea.exam_id = r.require_exam_id AND ea.user_id = ${student}
        AND ea.status = 'submitted'
        AND (CASE WHEN r.min_exam_pct IS NULL THEN ea.passed = 1 ELSE ea.final_score_pct_hundredths >= r.min_exam_pct * 100 END)))`;
}

/** The columns every issuance writes, from the rule `r`, the course `c` and the student `u`, named so a wrapping SELECT can filter them. */
function issuedColumns(ctx: SchoolCtx<SchoolActor>, id: SQL, code: SQL, now: number): SQL {
  return sql`${id} AS id, ${ctx.tenantId} AS tenant_id, ${code} AS code, c.id AS course_id, u.id AS student_id, COALESCE(r.title, c.title) AS title, c.title AS course_title,
    u.first_name AS holder_first_name, u.last_name AS holder_last_name, ${ctx.tenant.title} AS school_name, ${ctx.tenant.subdomain} AS issuer, ${now} AS issued_at, ${now} AS created_at`;
}

const INSERT_COLUMNS = sql.raw(
  "INSERT INTO certificates (id, tenant_id, code, course_id, student_id, title, course_title, holder_first_name, holder_last_name, school_name, issuer, issued_at, created_at)",
);


/** The grouped code of the certificate `cert`, as the push shows it. */
const groupedSql = (alias: string) => sql.raw(`substr(${alias}.code, 1, 4) || '-' || substr(${alias}.code, 5, 4) || '-' || substr(${alias}.code, 9, 4) || '-' || substr(${alias}.code, 13, 4)`);

/** `certificate.issued` to each student of `students` whose certificate of the course the batch wrote at `now`. */
async function issuedPush(ctx: SchoolCtx<SchoolActor>, courseId: string, now: number, students: { studentId: string } | { studentIds: SQL }): Promise<BatchItem> {
  const issuedHere = (student: SQL) => sql`(SELECT ic.id FROM certificates ic WHERE ${inSchool("ic", ctx.tenantId)} AND ic.course_id = ${courseId} AND ic.student_id = ${student} AND ic.issued_at = ${now})`;
  return enqueue(
    ctx,
    CERTIFICATE_ISSUED,
    { token: "student", ...students },
    {
      course_title: sql`(SELECT pc.course_title FROM certificates pc WHERE ${inSchool("pc", ctx.tenantId)} AND pc.course_id = ${courseId} AND pc.student_id = r.id)`,
      code: sql`(SELECT ${groupedSql("gc")} FROM certificates gc WHERE ${inSchool("gc", ctx.tenantId)} AND gc.course_id = ${courseId} AND gc.student_id = r.id)`,
    },
    { id: issuedHere(sql`r.id`) },
    `certificate.issued:${courseId}`,
    { when: sql`${issuedHere(sql`r.id`)} IS NOT NULL`, alsoToActor: true },
  );
}

/**
 * `certificates.issuance`: for a `course.completed`, the certificate (when the event's `when`
 * holds, the rule is on and the exam condition is met) and its push. Registered after the course
 * pushes: it reads the enrollment the recount completed, as they do.
 */
export const certificateIssuance = contentContributor({
  name: "certificates.issuance",
  handles: ["course.completed"],
  statements: async (ctx, event) => {
    const now = ctx.clock.now();
    const id = uuidv7(now);
    const insert = batchable(
      ctx,
      sql`${INSERT_COLUMNS}
        SELECT ${issuedColumns(ctx, sql`${id}`, sql`${await newCode(ctx.tenant.shard)}`, now)}
        FROM certificate_rules r
        JOIN courses c ON c.id = r.course_id AND ${liveInSchool("c", ctx.tenantId)}
        JOIN users u ON u.id = ${event.studentId} AND ${liveInSchool("u", ctx.tenantId)} AND u.role = 'student'
        WHERE ${inSchool("r", ctx.tenantId)} AND r.course_id = ${event.courseId} AND ${qualifies(ctx.tenantId, sql`u.id`)} AND (${event.when})
        ON CONFLICT (tenant_id, student_id, course_id) DO NOTHING`,
    );
    return [insert, await issuedPush(ctx, event.courseId, now, { studentId: event.studentId }), ...issuedWebhooks(ctx, event.courseId, now, sql`wc.student_id = ${event.studentId}`)];
  },
});

/**
 * `certificates.exam-issuance`: a settled exam attempt may meet the exam condition of a rule whose
 * course the student completed earlier (that completion found the condition unmet and issued
 * nothing). The source's read batch finds those courses (enabled rule requiring this exam, the
 * student's enrollment completed, no certificate yet); the write batch issues each with the same
 * INSERT as a completion, once the attempt's final score is written. An exam that also completes
 * its course in this batch is left to `certificates.issuance`: the read ran before the completion.
 */
export const certificateExamIssuance = contentContributor({
  name: "certificates.exam-issuance",
  handles: ["attempt.settled"],
  prepare(ctx, event) {
    if (event.attempt !== "exam") return { statements: [], read: () => [] as string[] };
    const { objectId: examId, studentId } = event.score;
    const statement = batchable(
      ctx,
      sql`SELECT r.course_id AS course_id FROM certificate_rules r
        JOIN enrollments e ON ${inSchool("e", ctx.tenantId)} AND e.course_id = r.course_id AND e.student_id = ${studentId}
          AND e.removed_at IS NULL AND e.completed_at IS NOT NULL
        WHERE ${inSchool("r", ctx.tenantId)} AND r.enabled = 1 AND r.require_exam_id = ${examId}
          AND NOT EXISTS (SELECT 1 FROM certificates x WHERE ${inSchool("x", ctx.tenantId)} AND x.course_id = r.course_id AND x.student_id = ${studentId})
        ORDER BY r.course_id`,
    );
    return { statements: [statement], read: (results) => rowsOf<{ course_id: string }>(results[0]).map((row) => row.course_id) };
  },
  async statements(ctx, event, courseIds) {
    if (event.attempt !== "exam" || !courseIds?.length) return [];
    const now = ctx.clock.now();
    const items: BatchItem[] = [];
    for (const courseId of courseIds) {
      items.push(
        completedEnrollmentsInsert(ctx, courseId, now, await newCodes(ctx.tenant.shard, 1), sql`e.student_id = ${event.score.studentId} AND (${event.score.final})`),
        await issuedPush(ctx, courseId, now, { studentId: event.score.studentId }),
        ...issuedWebhooks(ctx, courseId, now, sql`wc.student_id = ${event.score.studentId}`),
      );
    }
    return items;
  },
});

export const CERTIFICATES_CONTRIBUTORS = [certificateIssuance, certificateExamIssuance];

/**
 * The students of a course whose enrollment is completed (not removed), who qualify and hold no
 * certificate of it yet, `only` narrowing them: what `issue-missing` counts and then issues.
 */
function missingFrom(ctx: SchoolCtx<SchoolActor>, courseId: string, only: SQL): SQL {
  return sql`FROM certificate_rules r
      JOIN courses c ON c.id = r.course_id AND ${liveInSchool("c", ctx.tenantId)}
      JOIN enrollments e ON e.course_id = c.id AND ${inSchool("e", ctx.tenantId)} AND e.removed_at IS NULL AND e.completed_at IS NOT NULL
      JOIN users u ON u.id = e.student_id AND ${liveInSchool("u", ctx.tenantId)} AND u.role = 'student'
      WHERE ${inSchool("r", ctx.tenantId)} AND r.course_id = ${courseId} AND ${qualifies(ctx.tenantId, sql`u.id`)} AND (${only})
        AND NOT EXISTS (SELECT 1 FROM certificates hc WHERE ${inSchool("hc", ctx.tenantId)} AND hc.course_id = c.id AND hc.student_id = u.id)`;
}

/**
 * The certificates of a course for the students `missingFrom` finds: one set-based INSERT … SELECT.
 * Codes are drawn in the Worker (SQLite has no SHA-256 to aim a code at the shard), so the caller
 * passes a pool, concatenated, and row n takes the n-th code. A student who appeared after the pool
 * was drawn finds it empty and is left out (their own completion issued theirs); ON CONFLICT covers
 * a concurrent issuance. Shared by `issue-missing` and the exam issuance.
 */
function completedEnrollmentsInsert(ctx: SchoolCtx<SchoolActor>, courseId: string, now: number, codes: string[], only: SQL = sql`1`): BatchItem {
  const code = sql`substr(${codes.join("")}, (ROW_NUMBER() OVER (ORDER BY u.id) - 1) * 16 + 1, 16)`;
  return batchable(
    ctx,
    sql`${INSERT_COLUMNS}
      SELECT * FROM (SELECT ${issuedColumns(ctx, sqlUuidv7(now), code, now)} ${missingFrom(ctx, courseId, only)}) n
      WHERE length(n.code) = 16
      ON CONFLICT (tenant_id, student_id, course_id) DO NOTHING`,
  );
}

/** `issue-missing`'s read: the live course and how many certificates it would issue now (null row: no such course). */
export function missingCountSql(ctx: SchoolCtx<SchoolActor>, courseId: string): BatchItem {
  return batchable(
    ctx,
    sql`SELECT (SELECT COUNT(*) ${missingFrom(ctx, courseId, sql`1`)}) AS missing FROM courses lc WHERE lc.id = ${courseId} AND ${liveInSchool("lc", ctx.tenantId)}`,
  );
}

/**
 * `POST /t/courses/:id/certificates/issue-missing`: the `missing` students its read counted, in one
 * set-based statement with a pool of as many codes, plus their pushes. The caller reads the
 * INSERT's changes as `issued`.
 */
export async function issueMissingStatements(ctx: SchoolCtx<SchoolActor>, courseId: string, missing: number): Promise<BatchItem[]> {
  const now = ctx.clock.now();
  const issued = sql`SELECT nc.student_id FROM certificates nc WHERE ${inSchool("nc", ctx.tenantId)} AND nc.course_id = ${courseId} AND nc.issued_at = ${now}`;
  return [
    completedEnrollmentsInsert(ctx, courseId, now, await newCodes(ctx.tenant.shard, missing)),
    await issuedPush(ctx, courseId, now, { studentIds: issued }),
    ...issuedWebhooks(ctx, courseId, now),
  ];
}
