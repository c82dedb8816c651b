CREATE TABLE `accommodations` (
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`time_multiplier_hundredths` integer NOT NULL,
	`extra_time_seconds` integer NOT NULL,
	`extra_attempts` integer NOT NULL,
	`note` text,
	`updated_by` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `user_id`)
);
