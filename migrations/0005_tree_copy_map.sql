CREATE TABLE `tree_copy_map` (
	`tenant_id` text NOT NULL,
	`copy_id` text NOT NULL,
	`old_id` text NOT NULL,
	`new_id` text NOT NULL,
	PRIMARY KEY(`copy_id`, `old_id`)
);
--> statement-breakpoint
CREATE INDEX `tree_copy_map_tenant_copy` ON `tree_copy_map` (`tenant_id`,`copy_id`);