import { iso, isoOrNull } from "../../core/lib/clock";
import type { PATH_STATUSES } from "../../db/schema";

type PathStatus = (typeof PATH_STATUSES)[number];

/** A path row as the path readers select it (`pathColumnsSql`). */
export interface PathRow {
  id: string;
  title: string;
  description: string;
  status: PathStatus;
  created_by: string | null;
  course_count: number;
  created_at: number;
  updated_at: number;
  /** JSON array of `[course_id, position, title]`, in order; detail reads only. */
  courses?: string | null;
}

export function presentPath(row: PathRow) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    created_by: row.created_by,
    course_count: row.course_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function presentPathDetail(row: PathRow) {
  const courses = JSON.parse(row.courses ?? "[]") as [string, number, string][];
  return { ...presentPath(row), courses: courses.map(([course_id, position, title]) => ({ course_id, position, title })) };
}

/** One (path, course) row of the student view; a path without visible courses has course fields NULL. */
export interface StudentPathRow {
  path_id: string;
  path_title: string;
  path_description: string;
  course_id: string | null;
  position: number | null;
  course_title: string | null;
  status: "locked" | "unlocked" | "completed" | null;
  unlocked_at: number | null;
  completed_at: number | null;
}

type StudentPath = {
  path_id: string;
  title: string;
  description: string;
  courses: { course_id: string; position: number; title: string; status: "locked" | "unlocked" | "completed"; unlocked_at: string | null; completed_at: string | null }[];
};

/** Rows ordered by path, then course order, folded into the student view. A locked course shows its title and place only. */
export function presentStudentPaths(rows: readonly StudentPathRow[]): StudentPath[] {
  const paths: StudentPath[] = [];
  for (const row of rows) {
    let path = paths[paths.length - 1];
    if (path?.path_id !== row.path_id) {
      path = { path_id: row.path_id, title: row.path_title, description: row.path_description, courses: [] };
      paths.push(path);
    }
    if (row.course_id === null || row.status === null) continue;
    const locked = row.status === "locked";
    path.courses.push({
      course_id: row.course_id,
      position: row.position ?? 0,
      title: row.course_title ?? "",
      status: row.status,
      unlocked_at: locked ? null : isoOrNull(row.unlocked_at),
      completed_at: locked ? null : isoOrNull(row.completed_at),
    });
  }
  return paths;
}

export interface PathStudentRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  is_active: number;
  courses_unlocked: number | null;
  courses_completed: number | null;
  first_unlocked_at: number | null;
  last_activity_at: number | null;
}

export function presentPathStudent(row: PathStudentRow) {
  return {
    student_id: row.id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    is_active: row.is_active === 1,
    courses_unlocked: row.courses_unlocked ?? 0,
    courses_completed: row.courses_completed ?? 0,
    first_unlocked_at: isoOrNull(row.first_unlocked_at),
    last_activity_at: isoOrNull(row.last_activity_at),
  };
}
