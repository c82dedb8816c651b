CREATE TABLE `blocks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`module_id` text NOT NULL,
	`lesson_id` text NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`ref_id` text,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `blocks_tenant_lesson` ON `blocks` (`tenant_id`,`lesson_id`,`position`);--> statement-breakpoint
CREATE INDEX `blocks_tenant_course` ON `blocks` (`tenant_id`,`course_id`);--> statement-breakpoint
CREATE INDEX `blocks_tenant_ref` ON `blocks` (`tenant_id`,`ref_id`) WHERE ref_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `course_modules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`position` integer NOT NULL,
	`cover_image_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `course_modules_tenant_course` ON `course_modules` (`tenant_id`,`course_id`,`position`);--> statement-breakpoint
CREATE TABLE `courses` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`slug` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`sequential_required` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`cover_image_id` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `courses_slug_live` ON `courses` (`tenant_id`,`slug`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `courses_tenant_position` ON `courses` (`tenant_id`,`position`);--> statement-breakpoint
CREATE TABLE `lesson_groups` (
	`tenant_id` text NOT NULL,
	`lesson_id` text NOT NULL,
	`group_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`lesson_id`, `group_id`)
);
--> statement-breakpoint
CREATE INDEX `lesson_groups_tenant_lesson` ON `lesson_groups` (`tenant_id`,`lesson_id`);--> statement-breakpoint
CREATE INDEX `lesson_groups_tenant_group` ON `lesson_groups` (`tenant_id`,`group_id`);--> statement-breakpoint
CREATE TABLE `lessons` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`module_id` text NOT NULL,
	`title` text NOT NULL,
	`position` integer NOT NULL,
	`screenshot_protection_enabled` integer DEFAULT false NOT NULL,
	`cover_image_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `lessons_tenant_module` ON `lessons` (`tenant_id`,`module_id`,`position`);--> statement-breakpoint
CREATE INDEX `lessons_tenant_course` ON `lessons` (`tenant_id`,`course_id`);--> statement-breakpoint
CREATE TABLE `block_completions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`lesson_id` text NOT NULL,
	`block_id` text NOT NULL,
	`student_id` text NOT NULL,
	`enrollment_id` text NOT NULL,
	`source` text NOT NULL,
	`completed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `block_completions_block_student` ON `block_completions` (`block_id`,`student_id`);--> statement-breakpoint
CREATE INDEX `block_completions_tenant_student_course` ON `block_completions` (`tenant_id`,`student_id`,`course_id`);--> statement-breakpoint
CREATE INDEX `block_completions_tenant_lesson` ON `block_completions` (`tenant_id`,`lesson_id`);--> statement-breakpoint
CREATE TABLE `enrollment_sources` (
	`tenant_id` text NOT NULL,
	`enrollment_id` text NOT NULL,
	`course_id` text NOT NULL,
	`student_id` text NOT NULL,
	`kind` text NOT NULL,
	`group_id` text,
	`source_key` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`enrollment_id`, `source_key`)
);
--> statement-breakpoint
CREATE INDEX `enrollment_sources_tenant_course` ON `enrollment_sources` (`tenant_id`,`course_id`,`student_id`);--> statement-breakpoint
CREATE INDEX `enrollment_sources_tenant_group` ON `enrollment_sources` (`tenant_id`,`group_id`) WHERE group_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `enrollments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`student_id` text NOT NULL,
	`enrolled_at` integer NOT NULL,
	`enrolled_by` text,
	`removed_at` integer,
	`last_accessed_block_id` text,
	`last_accessed_at` integer,
	`blocks_completed` integer DEFAULT 0 NOT NULL,
	`total_blocks` integer DEFAULT 0 NOT NULL,
	`completed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `enrollments_course_student` ON `enrollments` (`course_id`,`student_id`);--> statement-breakpoint
CREATE INDEX `enrollments_tenant_course` ON `enrollments` (`tenant_id`,`course_id`,`removed_at`);--> statement-breakpoint
CREATE INDEX `enrollments_tenant_student` ON `enrollments` (`tenant_id`,`student_id`,`removed_at`);