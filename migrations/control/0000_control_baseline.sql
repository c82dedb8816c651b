CREATE TABLE `auth_devices` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`user_id` text NOT NULL,
	`installation_id` text,
	`platform` text NOT NULL,
	`name` text,
	`os_name` text,
	`os_version` text,
	`browser_name` text,
	`browser_version` text,
	`app_version` text,
	`last_seen_at` integer NOT NULL,
	`blocked_at` integer,
	`block_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `auth_devices_installation` ON `auth_devices` (`user_id`,`installation_id`) WHERE installation_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `auth_devices_user` ON `auth_devices` (`user_id`);--> statement-breakpoint
CREATE INDEX `auth_devices_tenant_user` ON `auth_devices` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `curator_permissions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`can_manage_courses` integer DEFAULT false NOT NULL,
	`can_manage_students` integer DEFAULT false NOT NULL,
	`can_manage_groups` integer DEFAULT false NOT NULL,
	`can_view_analytics` integer DEFAULT false NOT NULL,
	`can_manage_exams` integer DEFAULT false NOT NULL,
	`can_manage_notifications` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `curator_permissions_user_id_unique` ON `curator_permissions` (`user_id`);--> statement-breakpoint
CREATE INDEX `curator_permissions_tenant` ON `curator_permissions` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `device_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`user_id` text NOT NULL,
	`auth_device_id` text,
	`session_id` text,
	`type` text NOT NULL,
	`ip` text,
	`user_agent` text,
	`actor_user_id` text,
	`detail` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `device_events_user` ON `device_events` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `device_events_tenant_time` ON `device_events` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `device_limit_overrides` (
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`unlimited_devices` integer NOT NULL,
	`max_active_devices` integer,
	`expires_at` integer,
	`reason` text,
	`created_by_user_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `user_id`)
);
--> statement-breakpoint
CREATE TABLE `device_policies` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`mode` text NOT NULL,
	`max_active_devices` integer,
	`inactive_device_days` integer NOT NULL,
	`allow_self_management` integer DEFAULT false NOT NULL,
	`allow_self_replacement` integer DEFAULT false NOT NULL,
	`notify_on_new_device` integer DEFAULT false NOT NULL,
	`revoke_on_password_change` integer DEFAULT false NOT NULL,
	`revoke_on_password_reset` integer DEFAULT false NOT NULL,
	`session_idle_timeout_minutes` integer NOT NULL,
	`session_absolute_lifetime_days` integer NOT NULL,
	`event_retention_days` integer NOT NULL,
	`ip_visibility` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `device_replacement_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`pending_device` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `device_replacement_tokens_token_hash_unique` ON `device_replacement_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `device_replacement_user` ON `device_replacement_tokens` (`user_id`);--> statement-breakpoint
CREATE INDEX `device_replacement_tenant_user` ON `device_replacement_tokens` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `email_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`to_email` text NOT NULL,
	`kind` text NOT NULL,
	`locale` text NOT NULL,
	`subject` text NOT NULL,
	`text_body` text,
	`html_body` text,
	`meta` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_until` integer,
	`last_error` text,
	`provider_message_id` text,
	`sent_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `email_outbox_to` ON `email_outbox` (`to_email`,`created_at`);--> statement-breakpoint
CREATE INDEX `email_outbox_status` ON `email_outbox` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `email_outbox_tenant` ON `email_outbox` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `login_failures` (
	`key` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`window_started_at` integer NOT NULL,
	`locked_until` integer
);
--> statement-breakpoint
CREATE TABLE `password_reset_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`user_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`invalidated_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `password_reset_live` ON `password_reset_codes` (`user_id`) WHERE used_at IS NULL AND invalidated_at IS NULL;--> statement-breakpoint
CREATE INDEX `password_reset_tenant_user` ON `password_reset_codes` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`tariff_id` text,
	`tariff_title_snapshot` text,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`days` integer NOT NULL,
	`method` text NOT NULL,
	`reference` text,
	`notes` text,
	`applied_expires_at` integer NOT NULL,
	`created_by_user_id` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payments_tenant` ON `payments` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`user_id` text NOT NULL,
	`auth_device_id` text NOT NULL,
	`is_browser` integer DEFAULT false NOT NULL,
	`ip` text,
	`user_agent` text,
	`last_activity_at` integer NOT NULL,
	`idle_expires_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`revoked_at` integer,
	`revoke_reason` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_user` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `sessions_device` ON `sessions` (`auth_device_id`);--> statement-breakpoint
CREATE INDEX `sessions_tenant_user` ON `sessions` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `tariffs` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`price_cents` integer DEFAULT 0 NOT NULL,
	`duration_days` integer NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`slug` text NOT NULL,
	`subdomain` text NOT NULL,
	`logo` text,
	`color_scheme` text DEFAULT '#1F6FEB' NOT NULL,
	`hide_tests` integer DEFAULT false NOT NULL,
	`hide_assignments` integer DEFAULT false NOT NULL,
	`hide_trial_exams` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`timezone` text DEFAULT 'Asia/Tashkent' NOT NULL,
	`storage_cap_bytes` integer DEFAULT 10737418240 NOT NULL,
	`plan_state` text DEFAULT 'trial' NOT NULL,
	`expires_at` integer,
	`suspended_manually` integer DEFAULT false NOT NULL,
	`suspended_at` integer,
	`suspend_reason` text,
	`current_tariff_id` text,
	`shard` text DEFAULT 'DB_SCHOOLS_0' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_slug_live` ON `tenants` (`slug`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_subdomain_live` ON `tenants` (`subdomain`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `tenants_shard` ON `tenants` (`shard`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`avatar` text,
	`role` text NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`email_verified_at` integer,
	`last_active_at` integer,
	`individual_curator_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_live` ON `users` (`tenant_id`,`email`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `users_platform_email_live` ON `users` (`email`) WHERE deleted_at IS NULL AND tenant_id IS NULL;--> statement-breakpoint
CREATE INDEX `users_tenant_role` ON `users` (`tenant_id`,`role`);--> statement-breakpoint
CREATE INDEX `users_individual_curator` ON `users` (`individual_curator_id`);--> statement-breakpoint
CREATE INDEX `users_unranked` ON `users` (`tenant_id`,`role`,`id`) WHERE NOT (role = 'student' AND deleted_at IS NULL AND is_active = 1);