ALTER TABLE `webhook_events` ADD `subject_user_id` text;--> statement-breakpoint
CREATE INDEX `webhook_events_subject` ON `webhook_events` (`subject_user_id`) WHERE subject_user_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
-- The events already waiting name their person as the outbox now writes it (src/platform/webhooks/outbox.ts, SUBJECT_PATH).
UPDATE `webhook_events` SET `subject_user_id` = CASE
  WHEN `type` IN ('user.created', 'user.updated') THEN json_extract(`data`, '$.id')
  WHEN `type` IN ('user.deleted', 'import.applied', 'webhook.test') THEN NULL
  ELSE json_extract(`data`, '$.student_id') END;
