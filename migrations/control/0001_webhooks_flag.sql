ALTER TABLE `tenants` ADD `webhooks_active` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `tenants` ADD `webhooks_epoch` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Schools that existed before the flag may have webhooks on their shard, which this database cannot see: on, so none is silenced; the next disable or delete that leaves none clears it.
UPDATE `tenants` SET `webhooks_active` = 1;