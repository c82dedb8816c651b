-- Rating totals move inside the statement that writes a point event, whichever area writes it (docs/decisions.md, Rating); drizzle-kit does not declare triggers.
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
