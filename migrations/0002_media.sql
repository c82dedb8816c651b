CREATE TABLE `media_assets` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`kind` text NOT NULL,
	`filename` text NOT NULL,
	`declared_size` integer NOT NULL,
	`declared_mime` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`mime` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`object_key` text NOT NULL,
	`etag` text,
	`duration_seconds` integer,
	`total_pages` integer,
	`uploaded_by_user_id` text,
	`confirmed_at` integer,
	`object_purged_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `media_assets_tenant_usage` ON `media_assets` (`tenant_id`,`status`,`deleted_at`,`size_bytes`);--> statement-breakpoint
CREATE INDEX `media_assets_pending` ON `media_assets` (`status`,`created_at`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `media_assets_purge` ON `media_assets` (`created_at`) WHERE object_purged_at IS NULL AND (status = 'failed' OR deleted_at IS NOT NULL);