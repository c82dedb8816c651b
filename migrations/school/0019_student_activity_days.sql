CREATE TABLE `student_activity_days` (
	`tenant_id` text NOT NULL,
	`student_id` text NOT NULL,
	`day` integer NOT NULL,
	`completed` integer DEFAULT 0 NOT NULL,
	`quiz_started` integer DEFAULT 0 NOT NULL,
	`quiz_submitted` integer DEFAULT 0 NOT NULL,
	`exam_started` integer DEFAULT 0 NOT NULL,
	`exam_submitted` integer DEFAULT 0 NOT NULL,
	`handed_in` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tenant_id`, `student_id`, `day`)
);
--> statement-breakpoint
CREATE INDEX `student_activity_days_tenant_day` ON `student_activity_days` (`tenant_id`,`day`,`student_id`,`quiz_submitted`,`exam_submitted`,`handed_in`);--> statement-breakpoint
-- Backfill from the rows already there, one kind at a time (scripts/lib/activity-days.mjs folds the same way).
INSERT INTO `student_activity_days` (tenant_id, student_id, day, completed)
SELECT tenant_id, student_id, completed_at / 86400000, 1 FROM block_completions WHERE completed_at >= 0
GROUP BY tenant_id, student_id, completed_at / 86400000
ON CONFLICT (tenant_id, student_id, day) DO UPDATE SET completed = 1;
--> statement-breakpoint
INSERT INTO `student_activity_days` (tenant_id, student_id, day, quiz_started)
SELECT tenant_id, user_id, started_at / 86400000, 1 FROM quiz_attempts WHERE started_at >= 0 AND exam_attempt_id IS NULL
GROUP BY tenant_id, user_id, started_at / 86400000
ON CONFLICT (tenant_id, student_id, day) DO UPDATE SET quiz_started = 1;
--> statement-breakpoint
INSERT INTO `student_activity_days` (tenant_id, student_id, day, quiz_submitted)
SELECT tenant_id, user_id, submitted_at / 86400000, 1 FROM quiz_attempts WHERE submitted_at >= 0 AND exam_attempt_id IS NULL
GROUP BY tenant_id, user_id, submitted_at / 86400000
ON CONFLICT (tenant_id, student_id, day) DO UPDATE SET quiz_submitted = 1;
--> statement-breakpoint
INSERT INTO `student_activity_days` (tenant_id, student_id, day, exam_started)
SELECT tenant_id, user_id, started_at / 86400000, 1 FROM exam_attempts WHERE started_at >= 0
GROUP BY tenant_id, user_id, started_at / 86400000
ON CONFLICT (tenant_id, student_id, day) DO UPDATE SET exam_started = 1;
--> statement-breakpoint
INSERT INTO `student_activity_days` (tenant_id, student_id, day, exam_submitted)
SELECT tenant_id, user_id, submitted_at / 86400000, 1 FROM exam_attempts WHERE submitted_at >= 0
GROUP BY tenant_id, user_id, submitted_at / 86400000
ON CONFLICT (tenant_id, student_id, day) DO UPDATE SET exam_submitted = 1;
--> statement-breakpoint
INSERT INTO `student_activity_days` (tenant_id, student_id, day, handed_in)
SELECT tenant_id, student_id, submitted_at / 86400000, 1 FROM submissions WHERE submitted_at >= 0
GROUP BY tenant_id, student_id, submitted_at / 86400000
ON CONFLICT (tenant_id, student_id, day) DO UPDATE SET handed_in = 1;
