CREATE TABLE `curator_report_rows` (
	`tenant_id` text NOT NULL,
	`report_id` text NOT NULL,
	`run_id` text NOT NULL,
	`curator_id` text NOT NULL,
	`students` integer NOT NULL,
	`active` integer NOT NULL,
	`on_time` integer NOT NULL,
	`quizzes` integer NOT NULL,
	`exams` integer,
	PRIMARY KEY(`tenant_id`, `report_id`, `run_id`, `curator_id`)
);
--> statement-breakpoint
CREATE INDEX `curator_report_rows_curator` ON `curator_report_rows` (`curator_id`);--> statement-breakpoint
CREATE TABLE `curator_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`report_key` text NOT NULL,
	`curator_id` text,
	`group_id` text,
	`course_id` text,
	`module_id` text,
	`lesson_id` text,
	`from_ms` integer NOT NULL,
	`to_ms` integer,
	`requested_at` integer NOT NULL,
	`served_run` text,
	`computed_at` integer,
	`run_id` text,
	`run_started_at` integer,
	`run_after` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `curator_reports_key` ON `curator_reports` (`tenant_id`,`report_key`);--> statement-breakpoint
CREATE INDEX `curator_reports_curator` ON `curator_reports` (`curator_id`);