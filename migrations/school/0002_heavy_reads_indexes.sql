DROP INDEX `point_events_awarded`;--> statement-breakpoint
CREATE INDEX `point_events_awarded_points` ON `point_events` (`tenant_id`,`awarded_at`,`student_id`,`points_hundredths`);--> statement-breakpoint
DROP INDEX `enrollments_tenant_course`;--> statement-breakpoint
CREATE INDEX `enrollments_tenant_course` ON `enrollments` (`tenant_id`,`course_id`,`removed_at`,`enrolled_at`,`id`);--> statement-breakpoint
-- The users list's `q` reads the three folded texts from this index instead of folding every row's
-- names twice per request (docs/decisions/heavy-reads-rating.md, "User search"). Written here, not in
-- the schema: `users` is also a control-database table, which has no use for it. The expressions
-- must read exactly as src/platform/users/service.ts searches, or SQLite computes them again.
CREATE INDEX `users_search` ON `users` (`tenant_id`, lower((`first_name` || ' ' || `last_name`)), lower((`last_name` || ' ' || `first_name`)), lower(`email`)) WHERE deleted_at IS NULL;
