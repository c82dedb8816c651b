CREATE TABLE `quiz_figure_versions` (
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`version` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `quiz_id`)
);
--> statement-breakpoint
-- The item analysis snapshot's freshness (docs/decisions/item-analysis.md, "Snapshot and freshness"):
-- a quiz's version moves whenever a student-role figures row with settled attempts goes in or out.
-- Every settle, grading and regrade rebuilds the member's row (DELETE then INSERT), a permanent
-- deletion deletes it. No code reads `meta.changes` of a `quiz_figures` write, so the rows these
-- triggers add to it change nothing.
CREATE TRIGGER `quiz_figures_version_insert` AFTER INSERT ON `quiz_figures`
WHEN NEW.`actor_role` = 'student' AND NEW.`settled_count` > 0 BEGIN
	INSERT INTO `quiz_figure_versions` (`tenant_id`, `quiz_id`, `version`) VALUES (NEW.`tenant_id`, NEW.`quiz_id`, 1)
	ON CONFLICT (`tenant_id`, `quiz_id`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_figures_version_delete` AFTER DELETE ON `quiz_figures`
WHEN OLD.`actor_role` = 'student' AND OLD.`settled_count` > 0 BEGIN
	INSERT INTO `quiz_figure_versions` (`tenant_id`, `quiz_id`, `version`) VALUES (OLD.`tenant_id`, OLD.`quiz_id`, 1)
	ON CONFLICT (`tenant_id`, `quiz_id`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_figures_version_update` AFTER UPDATE ON `quiz_figures`
WHEN (NEW.`actor_role` = 'student' AND NEW.`settled_count` > 0) OR (OLD.`actor_role` = 'student' AND OLD.`settled_count` > 0) BEGIN
	INSERT INTO `quiz_figure_versions` (`tenant_id`, `quiz_id`, `version`) VALUES (NEW.`tenant_id`, NEW.`quiz_id`, 1)
	ON CONFLICT (`tenant_id`, `quiz_id`) DO UPDATE SET `version` = `version` + 1;
END;
--> statement-breakpoint
-- A member's soft deletion takes their figures out of the counted ones without writing them: the
-- freshness reads the school's deleted members (their number and latest `deleted_at`) from this
-- index. Written here, not in the schema: `users` is also a control-database table.
CREATE INDEX `users_deleted` ON `users` (`tenant_id`, `deleted_at`) WHERE deleted_at IS NOT NULL;
