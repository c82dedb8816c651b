-- Written by hand, not by drizzle-kit (which splits an index expression at its commas): the list's
-- counts, one range per status bucket (docs/decisions/heavy-reads-enrollments.md, "Enrollment counts
-- without a status per row"). The activity expression must read as storedActivitySql writes it
-- (src/content/enrollments/status.ts), or SQLite does not use the index for it.
CREATE INDEX `enrollments_tenant_course_counts` ON `enrollments` (`tenant_id`, `course_id`, `removed_at`, `completed_at`,
  NULLIF(MAX(COALESCE(`last_accessed_at`, 0), COALESCE(`last_completion_at`, 0)), 0), `total_blocks`, `blocks_completed`);
