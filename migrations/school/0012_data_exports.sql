CREATE TABLE `data_exports` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text,
	`requested_by` text,
	`status` text NOT NULL,
	`object_key` text,
	`size_bytes` integer,
	`created_at` integer NOT NULL,
	`ready_at` integer,
	`expires_at` integer,
	`failed_at` integer
);
--> statement-breakpoint
CREATE INDEX `data_exports_tenant_user_created` ON `data_exports` (`tenant_id`,`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `data_exports_tenant_expires` ON `data_exports` (`tenant_id`,`expires_at`);--> statement-breakpoint
CREATE INDEX `quiz_attempt_answers_tenant_user` ON `quiz_attempt_answers` (`tenant_id`,`user_id`);