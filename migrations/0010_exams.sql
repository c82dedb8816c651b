CREATE TABLE `exam_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`exam_id` text NOT NULL,
	`user_id` text NOT NULL,
	`actor_role` text NOT NULL,
	`status` text DEFAULT 'in_progress' NOT NULL,
	`started_at` integer NOT NULL,
	`deadline_at` integer NOT NULL,
	`submitted_at` integer,
	`auto_finalized` integer DEFAULT false NOT NULL,
	`final_score_hundredths` integer,
	`final_max_hundredths` integer,
	`final_score_pct_hundredths` integer,
	`passed` integer,
	`warned_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `exam_attempts_tenant_exam` ON `exam_attempts` (`tenant_id`,`exam_id`,`status`);--> statement-breakpoint
CREATE INDEX `exam_attempts_tenant_user` ON `exam_attempts` (`tenant_id`,`user_id`,`exam_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `exam_attempts_one_in_progress` ON `exam_attempts` (`exam_id`,`user_id`) WHERE status = 'in_progress';--> statement-breakpoint
CREATE TABLE `exam_section_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`exam_attempt_id` text NOT NULL,
	`exam_section_id` text NOT NULL,
	`quiz_attempt_id` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `exam_section_attempts_once` ON `exam_section_attempts` (`exam_attempt_id`,`exam_section_id`);--> statement-breakpoint
CREATE INDEX `exam_section_attempts_tenant_attempt` ON `exam_section_attempts` (`tenant_id`,`exam_attempt_id`);--> statement-breakpoint
CREATE TABLE `exam_sections` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`exam_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`title` text NOT NULL,
	`position` integer NOT NULL,
	`weight` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `exam_sections_tenant_exam` ON `exam_sections` (`tenant_id`,`exam_id`,`deleted_at`,`position`);--> statement-breakpoint
CREATE INDEX `exam_sections_tenant_quiz` ON `exam_sections` (`tenant_id`,`quiz_id`);--> statement-breakpoint
CREATE TABLE `exams` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`time_limit_seconds` integer NOT NULL,
	`passing_score` integer,
	`max_attempts` integer,
	`retake_policy` text DEFAULT 'best' NOT NULL,
	`screenshot_protection_enabled` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`published_at` integer,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `exams_tenant_status` ON `exams` (`tenant_id`,`deleted_at`,`status`);