CREATE TABLE `curator_students` (
	`tenant_id` text NOT NULL,
	`curator_id` text NOT NULL,
	`student_id` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `curator_id`, `student_id`)
);
--> statement-breakpoint
CREATE INDEX `curator_students_tenant_student` ON `curator_students` (`tenant_id`,`student_id`,`curator_id`);--> statement-breakpoint
-- Backfill: every school's pairs from the rows already there, by the rule the writes keep
-- (src/platform/schools/curator-students.ts): a live, active curator with their individually
-- assigned live, active students and those of the live groups they curate.
INSERT OR IGNORE INTO `curator_students` (`tenant_id`, `curator_id`, `student_id`)
SELECT s.tenant_id, c.id, s.id FROM users s
  JOIN users c ON c.id = s.individual_curator_id AND c.tenant_id = s.tenant_id AND c.role = 'curator' AND c.deleted_at IS NULL AND c.is_active = 1
  WHERE s.individual_curator_id IS NOT NULL AND s.role = 'student' AND s.deleted_at IS NULL AND s.is_active = 1
UNION
SELECT gc.tenant_id, c.id, s.id FROM group_curators gc
  JOIN groups g ON g.id = gc.group_id AND g.tenant_id = gc.tenant_id AND g.deleted_at IS NULL
  JOIN users c ON c.id = gc.curator_id AND c.tenant_id = gc.tenant_id AND c.role = 'curator' AND c.deleted_at IS NULL AND c.is_active = 1
  JOIN group_members gm ON gm.group_id = gc.group_id AND gm.tenant_id = gc.tenant_id
  JOIN users s ON s.id = gm.user_id AND s.tenant_id = gc.tenant_id AND s.role = 'student' AND s.deleted_at IS NULL AND s.is_active = 1;
