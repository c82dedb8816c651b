CREATE TABLE `course_group_enrollments` (
	`id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`group_id` text NOT NULL,
	`enrolled_at` integer NOT NULL,
	`enrolled_by` text,
	PRIMARY KEY(`course_id`, `group_id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `course_group_enrollments_id` ON `course_group_enrollments` (`id`);--> statement-breakpoint
CREATE INDEX `course_group_enrollments_tenant_course` ON `course_group_enrollments` (`tenant_id`,`course_id`);--> statement-breakpoint
CREATE INDEX `course_group_enrollments_tenant_group` ON `course_group_enrollments` (`tenant_id`,`group_id`);--> statement-breakpoint
ALTER TABLE `groups` ADD `description` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `groups` ADD `created_by` text;