import { iso, isoOrNull } from "../../core/lib/clock";
import type { WindowLevel } from "../../db/schema";

/** A window row as the raw SELECTs of this area return it (`WINDOW_COLUMNS`). */
export interface RawWindow {
  id: string;
  course_id: string;
  group_id: string | null;
  level: WindowLevel;
  module_id: string | null;
  lesson_id: string | null;
  starts_at: number | null;
  ends_at: number | null;
  allow_before_start: number;
  allow_after_end: number;
  created_at: number;
  updated_at: number;
}

export function presentWindow(row: RawWindow) {
  return {
    id: row.id,
    course_id: row.course_id,
    group_id: row.group_id,
    level: row.level,
    module_id: row.module_id,
    lesson_id: row.lesson_id,
    starts_at: isoOrNull(row.starts_at),
    ends_at: isoOrNull(row.ends_at),
    allow_before_start: row.allow_before_start === 1,
    allow_after_end: row.allow_after_end === 1,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export type WindowView = ReturnType<typeof presentWindow>;
