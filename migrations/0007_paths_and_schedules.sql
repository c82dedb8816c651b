CREATE TABLE `learning_path_courses` (
	`tenant_id` text NOT NULL,
	`path_id` text NOT NULL,
	`course_id` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`path_id`, `course_id`)
);
--> statement-breakpoint
CREATE INDEX `learning_path_courses_tenant_path` ON `learning_path_courses` (`tenant_id`,`path_id`,`position`);--> statement-breakpoint
CREATE INDEX `learning_path_courses_tenant_course` ON `learning_path_courses` (`tenant_id`,`course_id`);--> statement-breakpoint
CREATE TABLE `learning_paths` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `learning_paths_tenant_status` ON `learning_paths` (`tenant_id`,`status`);--> statement-breakpoint
CREATE TABLE `schedule_windows` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`group_id` text,
	`grid_key` text NOT NULL,
	`level` text NOT NULL,
	`module_id` text,
	`lesson_id` text,
	`node_id` text NOT NULL,
	`starts_at` integer,
	`ends_at` integer,
	`allow_before_start` integer DEFAULT false NOT NULL,
	`allow_after_end` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `schedule_windows_node_live` ON `schedule_windows` (`grid_key`,`node_id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `schedule_windows_tenant_course` ON `schedule_windows` (`tenant_id`,`course_id`,`grid_key`);