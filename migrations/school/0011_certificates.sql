CREATE TABLE `certificate_rules` (
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`enabled` integer NOT NULL,
	`title` text,
	`require_exam_id` text,
	`min_exam_pct` integer,
	`updated_by` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `course_id`)
);
--> statement-breakpoint
CREATE TABLE `certificates` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`code` text NOT NULL,
	`course_id` text NOT NULL,
	`student_id` text NOT NULL,
	`title` text NOT NULL,
	`course_title` text NOT NULL,
	`holder_first_name` text NOT NULL,
	`holder_last_name` text NOT NULL,
	`school_name` text NOT NULL,
	`issuer` text NOT NULL,
	`issued_at` integer NOT NULL,
	`revoked_at` integer,
	`revoke_reason` text,
	`revoked_by` text,
	`pdf_key` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `certificates_one_per_course` ON `certificates` (`tenant_id`,`student_id`,`course_id`);--> statement-breakpoint
CREATE INDEX `certificates_tenant_course` ON `certificates` (`tenant_id`,`course_id`,`issued_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `certificates_code` ON `certificates` (`code`);