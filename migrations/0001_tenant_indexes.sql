CREATE INDEX `curator_permissions_tenant` ON `curator_permissions` (`tenant_id`);--> statement-breakpoint
CREATE INDEX `group_curators_tenant_curator` ON `group_curators` (`tenant_id`,`curator_id`);--> statement-breakpoint
CREATE INDEX `group_members_tenant_group` ON `group_members` (`tenant_id`,`group_id`);--> statement-breakpoint
CREATE INDEX `auth_devices_tenant_user` ON `auth_devices` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `sessions_tenant_user` ON `sessions` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `email_verification_tenant` ON `email_verification_tokens` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `password_reset_tenant_user` ON `password_reset_codes` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `email_outbox_tenant` ON `email_outbox` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `device_replacement_tenant_user` ON `device_replacement_tokens` (`tenant_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `notification_outbox_tenant` ON `notification_outbox` (`tenant_id`,`created_at`);