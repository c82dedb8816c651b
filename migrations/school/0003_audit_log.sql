CREATE TABLE `audit_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`at` integer NOT NULL,
	`actor_id` text,
	`actor_role` text,
	`actor_name` text,
	`actor_job` text,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text,
	`summary` text NOT NULL,
	`changes` text NOT NULL,
	`request_id` text
);
--> statement-breakpoint
CREATE INDEX `audit_entries_tenant_at` ON `audit_entries` (`tenant_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_entries_tenant_actor` ON `audit_entries` (`tenant_id`,`actor_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_entries_tenant_target` ON `audit_entries` (`tenant_id`,`target_type`,`target_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_entries_tenant_action` ON `audit_entries` (`tenant_id`,`action`,`at`);