CREATE INDEX `block_completions_tenant_completed` ON `block_completions` (`tenant_id`,`completed_at`,`student_id`);--> statement-breakpoint
CREATE INDEX `quiz_attempts_tenant_started` ON `quiz_attempts` (`tenant_id`,`started_at`,`user_id`,`exam_attempt_id`);--> statement-breakpoint
CREATE INDEX `quiz_attempts_tenant_submitted` ON `quiz_attempts` (`tenant_id`,`submitted_at`,`user_id`,`exam_attempt_id`);--> statement-breakpoint
CREATE INDEX `exam_attempts_tenant_started` ON `exam_attempts` (`tenant_id`,`started_at`,`user_id`);--> statement-breakpoint
CREATE INDEX `exam_attempts_tenant_submitted` ON `exam_attempts` (`tenant_id`,`submitted_at`,`user_id`);--> statement-breakpoint
CREATE INDEX `submissions_tenant_submitted` ON `submissions` (`tenant_id`,`submitted_at`,`student_id`,`assignment_id`);--> statement-breakpoint
-- A curator's individually assigned students in one seek (curator analytics' scope; without it the
-- planner walks every student of the school per curator through users_tenant_role). Written here,
-- not in the schema: `users` is also a control-database table, which has no use for it.
CREATE INDEX `users_tenant_individual_curator` ON `users` (`tenant_id`,`individual_curator_id`) WHERE individual_curator_id IS NOT NULL;
