CREATE TABLE `notification_campaign_recipients` (
	`tenant_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`user_id` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	PRIMARY KEY(`campaign_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `notification_campaign_recipients_tenant` ON `notification_campaign_recipients` (`tenant_id`,`campaign_id`,`status`);--> statement-breakpoint
CREATE INDEX `notification_campaign_recipients_user` ON `notification_campaign_recipients` (`user_id`);--> statement-breakpoint
CREATE TABLE `notification_campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`created_by_user_id` text,
	`status` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`deep_link` text,
	`audience_filter` text NOT NULL,
	`audience_count` integer DEFAULT 0 NOT NULL,
	`outbox_created_count` integer DEFAULT 0 NOT NULL,
	`sent_count` integer DEFAULT 0 NOT NULL,
	`failed_count` integer DEFAULT 0 NOT NULL,
	`fanned_out_at` integer,
	`scheduled_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	`cancelled_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notification_campaigns_tenant` ON `notification_campaigns` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_campaigns_due` ON `notification_campaigns` (`status`,`scheduled_at`);--> statement-breakpoint
CREATE TABLE `notification_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`outbox_id` text NOT NULL,
	`push_device_id` text NOT NULL,
	`user_id` text NOT NULL,
	`provider` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 1 NOT NULL,
	`provider_message_id` text,
	`last_error` text,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_deliveries_pair` ON `notification_deliveries` (`outbox_id`,`push_device_id`);--> statement-breakpoint
CREATE INDEX `notification_deliveries_tenant_user` ON `notification_deliveries` (`tenant_id`,`user_id`,`delivered_at`);--> statement-breakpoint
CREATE INDEX `notification_deliveries_user` ON `notification_deliveries` (`user_id`);--> statement-breakpoint
CREATE TABLE `notification_event_settings` (
	`tenant_id` text NOT NULL,
	`code` text NOT NULL,
	`enabled` integer,
	`config` text,
	`title_template` text,
	`body_template` text,
	`updated_by_user_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `code`)
);
--> statement-breakpoint
CREATE TABLE `push_preferences` (
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`push_enabled` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `push_preferences_user` ON `push_preferences` (`user_id`);--> statement-breakpoint
ALTER TABLE `notification_outbox` ADD `campaign_id` text;--> statement-breakpoint
ALTER TABLE `notification_outbox` ADD `lease_until` integer;--> statement-breakpoint
ALTER TABLE `notification_outbox` ADD `last_error` text;--> statement-breakpoint
ALTER TABLE `notification_outbox` ADD `settled_at` integer;--> statement-breakpoint
CREATE INDEX `notification_outbox_due` ON `notification_outbox` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_outbox_pending` ON `notification_outbox` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_outbox_campaign` ON `notification_outbox` (`campaign_id`,`status`);