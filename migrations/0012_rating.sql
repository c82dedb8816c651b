CREATE TABLE `point_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`student_id` text NOT NULL,
	`source_type` text NOT NULL,
	`target_id` text,
	`source_key` text NOT NULL,
	`points_hundredths` integer NOT NULL,
	`rule_id` text,
	`reason` text,
	`actor_user_id` text,
	`awarded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `point_events_source_key` ON `point_events` (`tenant_id`,`source_key`);--> statement-breakpoint
CREATE INDEX `point_events_student` ON `point_events` (`tenant_id`,`student_id`,`awarded_at`);--> statement-breakpoint
CREATE INDEX `point_events_student_target` ON `point_events` (`tenant_id`,`student_id`,`source_type`,`target_id`);--> statement-breakpoint
CREATE INDEX `point_events_awarded` ON `point_events` (`tenant_id`,`awarded_at`);--> statement-breakpoint
CREATE INDEX `point_events_target` ON `point_events` (`tenant_id`,`target_id`);--> statement-breakpoint
CREATE TABLE `rating_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`source_type` text NOT NULL,
	`target_id` text,
	`enabled` integer,
	`points_hundredths` integer,
	`calc_mode` text,
	`threshold_source` text,
	`threshold_value_hundredths` integer,
	`award_only_if_passed` integer,
	`repeat_behavior` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rating_rules_default` ON `rating_rules` (`tenant_id`,`source_type`) WHERE target_id IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `rating_rules_override` ON `rating_rules` (`tenant_id`,`source_type`,`target_id`) WHERE target_id IS NOT NULL AND deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `rating_totals` (
	`tenant_id` text NOT NULL,
	`student_id` text NOT NULL,
	`points_hundredths` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `student_id`)
);
--> statement-breakpoint
CREATE INDEX `rating_totals_points` ON `rating_totals` (`tenant_id`,`points_hundredths`);--> statement-breakpoint
-- Hand-written (drizzle-kit does not model triggers): a student's total follows their point events
-- inside the statement that writes them, whichever area writes (docs/decisions.md, Rating).
CREATE TRIGGER `point_events_total_insert` AFTER INSERT ON `point_events` BEGIN
	INSERT INTO `rating_totals` (`tenant_id`, `student_id`, `points_hundredths`, `updated_at`)
	VALUES (NEW.`tenant_id`, NEW.`student_id`, NEW.`points_hundredths`, NEW.`awarded_at`)
	ON CONFLICT (`tenant_id`, `student_id`) DO UPDATE SET `points_hundredths` = `points_hundredths` + excluded.`points_hundredths`, `updated_at` = excluded.`updated_at`;
END;
--> statement-breakpoint
CREATE TRIGGER `point_events_total_delete` AFTER DELETE ON `point_events` BEGIN
	UPDATE `rating_totals` SET `points_hundredths` = `points_hundredths` - OLD.`points_hundredths`
	WHERE `tenant_id` = OLD.`tenant_id` AND `student_id` = OLD.`student_id`;
END;
