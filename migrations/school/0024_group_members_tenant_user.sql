DROP INDEX `group_members_user`;--> statement-breakpoint
CREATE INDEX `group_members_tenant_user` ON `group_members` (`tenant_id`,`user_id`,`group_id`,`joined_at`);