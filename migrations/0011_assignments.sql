CREATE TABLE `assignment_attachments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`assignment_id` text NOT NULL,
	`media_asset_id` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `assignment_attachments_asset` ON `assignment_attachments` (`tenant_id`,`assignment_id`,`media_asset_id`);--> statement-breakpoint
CREATE INDEX `assignment_attachments_position` ON `assignment_attachments` (`tenant_id`,`assignment_id`,`position`);--> statement-breakpoint
CREATE TABLE `assignment_group_targets` (
	`tenant_id` text NOT NULL,
	`assignment_id` text NOT NULL,
	`group_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `assignment_id`, `group_id`)
);
--> statement-breakpoint
CREATE INDEX `assignment_group_targets_group` ON `assignment_group_targets` (`tenant_id`,`group_id`);--> statement-breakpoint
CREATE TABLE `assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`instructions` text DEFAULT '' NOT NULL,
	`max_score_hundredths` integer DEFAULT 10000 NOT NULL,
	`max_attempts` integer,
	`screenshot_protection_enabled` integer DEFAULT false NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `assignments_tenant_created` ON `assignments` (`tenant_id`,`deleted_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `submission_attachments` (
	`tenant_id` text NOT NULL,
	`submission_id` text NOT NULL,
	`student_id` text NOT NULL,
	`media_asset_id` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `submission_id`, `media_asset_id`)
);
--> statement-breakpoint
CREATE INDEX `submission_attachments_student` ON `submission_attachments` (`tenant_id`,`student_id`);--> statement-breakpoint
CREATE TABLE `submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`assignment_id` text NOT NULL,
	`student_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`text` text,
	`score_hundredths` integer,
	`feedback` text,
	`graded_by_id` text,
	`graded_at` integer,
	`submitted_at` integer,
	`reopened_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_attempt` ON `submissions` (`tenant_id`,`assignment_id`,`student_id`,`attempt`);--> statement-breakpoint
CREATE INDEX `submissions_tenant_assignment_status` ON `submissions` (`tenant_id`,`assignment_id`,`status`);--> statement-breakpoint
CREATE INDEX `submissions_tenant_student` ON `submissions` (`tenant_id`,`student_id`,`status`);