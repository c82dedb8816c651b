CREATE TABLE `quiz_regrade_items` (
	`tenant_id` text NOT NULL,
	`regrade_id` text NOT NULL,
	`attempt_id` text NOT NULL,
	`user_id` text NOT NULL,
	`old_score_pct_hundredths` integer,
	`old_passed` integer,
	`new_score_pct_hundredths` integer,
	`new_passed` integer,
	`applied_at` integer,
	PRIMARY KEY(`regrade_id`, `attempt_id`)
);
--> statement-breakpoint
CREATE INDEX `quiz_regrade_items_pending` ON `quiz_regrade_items` (`regrade_id`,`applied_at`,`attempt_id`);--> statement-breakpoint
CREATE INDEX `quiz_regrade_items_attempt` ON `quiz_regrade_items` (`tenant_id`,`attempt_id`);--> statement-breakpoint
CREATE INDEX `quiz_regrade_items_user` ON `quiz_regrade_items` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `quiz_regrades` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`question_id` text NOT NULL,
	`seq` integer NOT NULL,
	`mode` text NOT NULL,
	`key` text,
	`points_hundredths` integer NOT NULL,
	`status` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `quiz_regrades_tenant_quiz` ON `quiz_regrades` (`tenant_id`,`quiz_id`,`status`);--> statement-breakpoint
CREATE INDEX `quiz_regrades_tenant_question` ON `quiz_regrades` (`tenant_id`,`question_id`,`seq`);