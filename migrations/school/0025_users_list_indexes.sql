-- Written by hand, not by drizzle-kit: `users` is also a control-database table, and drizzle-kit
-- splits an index expression at its commas (docs/decisions/users.md, "The users list at a school's
-- size").
-- The users list's order: the page walks the school's live users newest first and stops at the page;
-- role and is_active are in the index, so the role and status filters and the total read no table row.
CREATE INDEX `users_tenant_created` ON `users` (`tenant_id`, `created_at`, `id`, `role`, `is_active`, `deleted_at`) WHERE deleted_at IS NULL;--> statement-breakpoint
-- The search's folded text, one per user: "first last", "last first" and the email joined by the
-- unit separator, which a search term (no control characters) can never contain, so one instr
-- matches exactly where one of the three would. created_at and id let the matches be sorted
-- without reading the table. The expression must read as src/platform/users/service.ts
-- `searchTextSql` writes it, or SQLite folds every row again.
DROP INDEX IF EXISTS `users_search`;--> statement-breakpoint
CREATE INDEX `users_search` ON `users` (`tenant_id`, lower(`first_name` || ' ' || `last_name` || char(31) || `last_name` || ' ' || `first_name` || char(31) || `email`), `created_at`, `id`, `deleted_at`) WHERE deleted_at IS NULL;
