import { sql, type SQL } from "drizzle-orm";
import { iso, isoOrNull } from "../../core/lib/clock";
import { pct } from "../common/progress";
import type { EnrollmentStatus } from "./status";

/**
 * A row's `pct` as integer hundredths in SQL, rounded half up like `pct` (integer division of
 * integers: exact), for rows with blocks; `avg_progress` is the mean of these, rounded once more.
 */
export function pctHundredthsSql(row: SQL): SQL {
  return sql`((min(${row}.blocks_completed, ${row}.total_blocks) * 20000 + ${row}.total_blocks) / (2 * ${row}.total_blocks))`;
}

export interface EnrollmentRow {
  id: string;
  student_id: string;
  course_id: string;
  enrolled_at: number;
  enrolled_by: string | null;
  last_accessed_block_id: string | null;
}

/** The Enrollment resource. */
export function toEnrollment(row: EnrollmentRow) {
  return {
    id: row.id,
    student_id: row.student_id,
    course_id: row.course_id,
    enrolled_at: iso(row.enrolled_at),
    enrolled_by: row.enrolled_by,
    last_accessed_block_id: row.last_accessed_block_id,
  };
}

export interface CuratorRow {
  enrollment_id: string;
  student_id: string;
  student_email: string;
  student_first_name: string;
  student_last_name: string;
  enrolled_at: number;
  enrolled_by: string | null;
  blocks_completed: number;
  total_blocks: number;
  last_accessed_at: number | null;
  completed_at: number | null;
  activity: number | null;
  status: EnrollmentStatus;
}

/** A row of a course's enrollment list (curator view), with its status bucket. */
export function toCuratorRow(row: CuratorRow) {
  return {
    enrollment_id: row.enrollment_id,
    student_id: row.student_id,
    student_email: row.student_email,
    student_first_name: row.student_first_name,
    student_last_name: row.student_last_name,
    enrolled_at: iso(row.enrolled_at),
    enrolled_by: row.enrolled_by,
    blocks_completed: row.blocks_completed,
    total_blocks: row.total_blocks,
    pct: pct(row.blocks_completed, row.total_blocks),
    last_accessed_at: isoOrNull(row.last_accessed_at),
    completed_at: isoOrNull(row.completed_at),
    status: row.status,
  };
}

export interface StudentCourseRow {
  course_id: string;
  course_title: string;
  course_status: string;
  cover_image_id: string | null;
  enrollment_id: string;
  enrolled_at: number;
  last_accessed_block_id: string | null;
  last_accessed_at: number | null;
  blocks_completed: number;
  total_blocks: number;
  completed_at: number | null;
}

/** A row of the student's own course list. */
export function toStudentCourseRow(row: StudentCourseRow) {
  return {
    course_id: row.course_id,
    course_title: row.course_title,
    course_status: row.course_status,
    cover_image_id: row.cover_image_id,
    enrollment_id: row.enrollment_id,
    enrolled_at: iso(row.enrolled_at),
    last_accessed_block_id: row.last_accessed_block_id,
    last_accessed_at: isoOrNull(row.last_accessed_at),
    blocks_completed: row.blocks_completed,
    total_blocks: row.total_blocks,
    pct: pct(row.blocks_completed, row.total_blocks),
    completed_at: isoOrNull(row.completed_at),
    auth_has_access: true as const,
  };
}
