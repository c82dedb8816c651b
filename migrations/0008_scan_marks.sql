CREATE TABLE `scan_marks` (
	`tenant_id` text NOT NULL,
	`mark_key` text PRIMARY KEY NOT NULL,
	`until` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `scan_marks_tenant_until` ON `scan_marks` (`tenant_id`,`until`);