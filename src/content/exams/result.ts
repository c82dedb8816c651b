import { sql, type SQL } from "drizzle-orm";
import { formatHundredths, formatHundredthsOrNull, roundDiv } from "../../core/db/decimal";
import { isoOrNull } from "../../core/lib/clock";
import { inSchool } from "../../core/db/conditions";

/**
 * An exam attempt's figures as the exam shows them (the student view's `result`, the finished
 * attempt's `sections`). Each section counts as many points as its weight: its `max_score` is the
 * weight, its `score_pct` the section quiz attempt's score over that attempt's max, its `score`
 * the weight × that fraction; an unvisited section (or one whose max is 0) scores 0. Every figure
 * is computed exactly from the stored hundredths and rounded half-up once.
 */

/** One section of an exam attempt as `attemptSectionsJsonSql` lists it. */
export interface SectionFiguresRow {
  section_id: string;
  title: string;
  weight: number;
  position: number;
  /** The section quiz attempt's score and max in hundredths of a point; null when not visited (or not scored). */
  score_hundredths: number | null;
  max_hundredths: number | null;
  /** The section's quiz attempt in this exam attempt; null when not visited (a regrade re-derives the exam from it). */
  quiz_attempt_id?: string | null;
}

/**
 * SQL text: JSON array of the exam's live sections in position order, each with the figures of
 * the attempt's quiz attempt for it (`SectionFiguresRow`). The exam and the attempt are SQL
 * (an alias's column or a value).
 */
export function attemptSectionsJsonSql(tenantId: string, examId: SQL, attemptId: SQL): SQL {
  return sql`(SELECT json_group_array(json_object('section_id', x.id, 'title', x.title, 'weight', x.weight, 'position', x.position,
        'score_hundredths', x.score, 'max_hundredths', x.max, 'quiz_attempt_id', x.quiz_attempt_id))
      FROM (SELECT xs.id, xs.title, xs.weight, xs.position, xq.score_hundredths AS score, xq.max_score_hundredths AS max, xq.id AS quiz_attempt_id
            FROM exam_sections xs
              LEFT JOIN exam_section_attempts xa ON ${inSchool("xa", tenantId)} AND xa.exam_attempt_id = ${attemptId} AND xa.exam_section_id = xs.id
              LEFT JOIN quiz_attempts xq ON xq.id = xa.quiz_attempt_id AND ${inSchool("xq", tenantId)}
            WHERE ${inSchool("xs", tenantId)} AND xs.exam_id = ${examId} AND xs.deleted_at IS NULL
            ORDER BY xs.position, xs.id) x)`;
}

/**
 * SQL scalar: the id of the user's finished attempt that stands as their result on the exam
 * (`exam` an alias of `exams`), by its retake policy: `best` the highest final percentage, `last`
 * the latest submitted; ties go to the latest submitted. NULL without a finished attempt.
 */
export function resultAttemptIdSql(tenantId: string, exam: SQL, userId: SQL | string): SQL {
  return sql`(SELECT ra.id FROM exam_attempts ra
      WHERE ${inSchool("ra", tenantId)} AND ra.exam_id = ${exam}.id AND ra.user_id = ${userId} AND ra.status = 'submitted'
      ORDER BY CASE WHEN ${exam}.retake_policy = 'last' THEN ra.submitted_at ELSE ra.final_score_pct_hundredths END DESC,
        ra.submitted_at DESC, ra.id DESC
      LIMIT 1)`;
}

/** One section's figures as the API shows them. */
export function presentSectionFigures(row: SectionFiguresRow) {
  const score = row.score_hundredths ?? 0;
  const max = row.max_hundredths ?? 0;
  const visited = max > 0;
  return {
    section_id: row.section_id,
    title: row.title,
    weight: row.weight,
    score: formatHundredths(visited ? roundDiv(row.weight * 100 * score, max) : 0),
    max_score: formatHundredths(row.weight * 100),
    score_pct: formatHundredths(visited ? roundDiv(score * 10_000, max) : 0),
  };
}

export type SectionFiguresView = ReturnType<typeof presentSectionFigures>;

/** The stored final figures of a finished attempt with its sections (JSON text or rows). */
export interface ResultRow {
  attempt_id: string;
  submitted_at: number | null;
  final_score_hundredths: number | null;
  final_max_hundredths: number | null;
  final_score_pct_hundredths: number | null;
  passed: number | boolean | null;
  sections: string | readonly SectionFiguresRow[];
}

/** The student view's `result`: the attempt's stored final figures and its sections. */
export function presentExamResult(row: ResultRow) {
  const sections = typeof row.sections === "string" ? (JSON.parse(row.sections) as SectionFiguresRow[]) : row.sections;
  return {
    attempt_id: row.attempt_id,
    score: formatHundredthsOrNull(row.final_score_hundredths),
    max_score: formatHundredthsOrNull(row.final_max_hundredths),
    score_pct: formatHundredthsOrNull(row.final_score_pct_hundredths),
    passed: row.passed === null ? null : Boolean(row.passed),
    submitted_at: isoOrNull(row.submitted_at),
    sections: sections.map(presentSectionFigures),
  };
}

export type ExamResultView = ReturnType<typeof presentExamResult>;

/** SQL text: the result attempt as JSON (`ResultRow` with its sections), or NULL; `exam` an alias of `exams`. */
export function resultJsonSql(tenantId: string, exam: SQL, userId: SQL | string): SQL {
  return sql`(SELECT json_object('attempt_id', rr.id, 'submitted_at', rr.submitted_at, 'final_score_hundredths', rr.final_score_hundredths,
        'final_max_hundredths', rr.final_max_hundredths, 'final_score_pct_hundredths', rr.final_score_pct_hundredths, 'passed', rr.passed,
        'sections', json(${attemptSectionsJsonSql(tenantId, sql`rr.exam_id`, sql`rr.id`)}))
      FROM exam_attempts rr WHERE ${inSchool("rr", tenantId)} AND rr.id = ${resultAttemptIdSql(tenantId, exam, userId)})`;
}
