CREATE TABLE `import_chunks` (
	`tenant_id` text NOT NULL,
	`import_id` text NOT NULL,
	`chunk` integer NOT NULL,
	`rows` text NOT NULL,
	PRIMARY KEY(`import_id`, `chunk`)
);
--> statement-breakpoint
CREATE INDEX `import_chunks_tenant_import` ON `import_chunks` (`tenant_id`,`import_id`);--> statement-breakpoint
CREATE TABLE `imports` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`applied_at` integer,
	`file_sha256` text NOT NULL,
	`plan_hash` text NOT NULL,
	`counts` text NOT NULL,
	`columns` text NOT NULL,
	`delimiter` text NOT NULL,
	`progress` integer DEFAULT 0 NOT NULL,
	`result` text
);
--> statement-breakpoint
CREATE INDEX `imports_tenant_created` ON `imports` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `imports_tenant_expires` ON `imports` (`tenant_id`,`expires_at`);