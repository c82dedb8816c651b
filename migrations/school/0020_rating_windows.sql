CREATE TABLE `rating_window_totals` (
	`tenant_id` text NOT NULL,
	`window_id` text NOT NULL,
	`student_id` text NOT NULL,
	`points_hundredths` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `window_id`, `student_id`)
);
--> statement-breakpoint
CREATE INDEX `rating_window_totals_points` ON `rating_window_totals` (`tenant_id`,`window_id`,`points_hundredths`);--> statement-breakpoint
CREATE TABLE `rating_windows` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`from_ms` integer NOT NULL,
	`to_ms` integer NOT NULL,
	`requested_at` integer NOT NULL,
	`ready_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rating_windows_bounds` ON `rating_windows` (`tenant_id`,`from_ms`,`to_ms`);--> statement-breakpoint
DROP INDEX `point_events_student`;--> statement-breakpoint
CREATE INDEX `point_events_student` ON `point_events` (`tenant_id`,`student_id`,`awarded_at`,`points_hundredths`);--> statement-breakpoint
-- A window's totals move inside the statement that writes a point event, as `rating_totals` do (migration 0001); drizzle-kit does not declare triggers.
-- An upsert on both sides: a student the queue has not summed yet gets a row the build then overwrites with the full sum (docs/decisions/heavy-reads-rating.md, "Window snapshots").
CREATE TRIGGER `point_events_window_insert` AFTER INSERT ON `point_events` BEGIN
	INSERT INTO `rating_window_totals` (`tenant_id`, `window_id`, `student_id`, `points_hundredths`)
	SELECT w.`tenant_id`, w.`id`, NEW.`student_id`, NEW.`points_hundredths` FROM `rating_windows` w
	WHERE w.`tenant_id` = NEW.`tenant_id` AND w.`from_ms` <= NEW.`awarded_at` AND w.`to_ms` > NEW.`awarded_at`
	ON CONFLICT (`tenant_id`, `window_id`, `student_id`) DO UPDATE SET `points_hundredths` = `points_hundredths` + excluded.`points_hundredths`;
END;
--> statement-breakpoint
CREATE TRIGGER `point_events_window_delete` AFTER DELETE ON `point_events` BEGIN
	INSERT INTO `rating_window_totals` (`tenant_id`, `window_id`, `student_id`, `points_hundredths`)
	SELECT w.`tenant_id`, w.`id`, OLD.`student_id`, -OLD.`points_hundredths` FROM `rating_windows` w
	WHERE w.`tenant_id` = OLD.`tenant_id` AND w.`from_ms` <= OLD.`awarded_at` AND w.`to_ms` > OLD.`awarded_at`
	ON CONFLICT (`tenant_id`, `window_id`, `student_id`) DO UPDATE SET `points_hundredths` = `points_hundredths` + excluded.`points_hundredths`;
END;
