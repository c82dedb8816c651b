CREATE TABLE `item_analysis_snapshots` (
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`fingerprint` text,
	`data` text,
	`computed_at` integer,
	`requested_at` integer,
	PRIMARY KEY(`tenant_id`, `quiz_id`)
);
