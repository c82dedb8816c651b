CREATE TABLE `email_verification_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`invalidated_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_verification_tokens_token_hash_unique` ON `email_verification_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `email_verification_user` ON `email_verification_tokens` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `email_verification_tenant` ON `email_verification_tokens` (`tenant_id`,`created_at`);--> statement-breakpoint
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
CREATE INDEX `users_unranked` ON `users` (`tenant_id`,`role`,`id`) WHERE NOT (role = 'student' AND deleted_at IS NULL AND is_active = 1);--> statement-breakpoint
CREATE TABLE `group_curators` (
	`tenant_id` text NOT NULL,
	`group_id` text NOT NULL,
	`curator_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`group_id`, `curator_id`)
);
--> statement-breakpoint
CREATE INDEX `group_curators_curator` ON `group_curators` (`curator_id`);--> statement-breakpoint
CREATE INDEX `group_curators_tenant_curator` ON `group_curators` (`tenant_id`,`curator_id`);--> statement-breakpoint
CREATE TABLE `group_members` (
	`tenant_id` text NOT NULL,
	`group_id` text NOT NULL,
	`user_id` text NOT NULL,
	`joined_at` integer NOT NULL,
	PRIMARY KEY(`group_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `group_members_user` ON `group_members` (`user_id`);--> statement-breakpoint
CREATE INDEX `group_members_tenant_group` ON `group_members` (`tenant_id`,`group_id`);--> statement-breakpoint
CREATE TABLE `groups` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`logo` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `groups_tenant` ON `groups` (`tenant_id`);--> statement-breakpoint
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
CREATE TABLE `notification_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`event_code` text NOT NULL,
	`category` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`deep_link` text,
	`data` text NOT NULL,
	`aggregate_type` text,
	`aggregate_id` text,
	`dedupe_key` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`sent_at` integer,
	`created_at` integer NOT NULL,
	`campaign_id` text,
	`lease_until` integer,
	`last_error` text,
	`settled_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_outbox_dedupe` ON `notification_outbox` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `notification_outbox_user` ON `notification_outbox` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_outbox_tenant` ON `notification_outbox` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_outbox_due` ON `notification_outbox` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_outbox_pending` ON `notification_outbox` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `notification_outbox_campaign` ON `notification_outbox` (`campaign_id`,`status`);--> statement-breakpoint
CREATE TABLE `push_devices` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`installation_id` text NOT NULL,
	`provider` text NOT NULL,
	`platform` text NOT NULL,
	`token_ciphertext` text,
	`token_hash` text,
	`enabled` integer DEFAULT true NOT NULL,
	`app_version` text,
	`last_seen_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_devices_installation_live` ON `push_devices` (`tenant_id`,`user_id`,`provider`,`installation_id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `push_devices_token_hash` ON `push_devices` (`token_hash`);--> statement-breakpoint
CREATE INDEX `push_devices_user` ON `push_devices` (`user_id`);--> statement-breakpoint
CREATE TABLE `push_preferences` (
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`push_enabled` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `push_preferences_user` ON `push_preferences` (`user_id`);--> statement-breakpoint
CREATE TABLE `media_assets` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`kind` text NOT NULL,
	`filename` text NOT NULL,
	`declared_size` integer NOT NULL,
	`declared_mime` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`mime` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`object_key` text NOT NULL,
	`etag` text,
	`duration_seconds` integer,
	`total_pages` integer,
	`uploaded_by_user_id` text,
	`confirmed_at` integer,
	`object_purged_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `media_assets_tenant_usage` ON `media_assets` (`tenant_id`,`status`,`deleted_at`,`size_bytes`);--> statement-breakpoint
CREATE INDEX `media_assets_pending` ON `media_assets` (`status`,`created_at`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `media_assets_purge` ON `media_assets` (`created_at`) WHERE object_purged_at IS NULL AND (status = 'failed' OR deleted_at IS NOT NULL);--> statement-breakpoint
CREATE TABLE `blocks` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`module_id` text NOT NULL,
	`lesson_id` text NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`ref_id` text,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `blocks_tenant_lesson` ON `blocks` (`tenant_id`,`lesson_id`,`position`);--> statement-breakpoint
CREATE INDEX `blocks_tenant_course` ON `blocks` (`tenant_id`,`course_id`);--> statement-breakpoint
CREATE INDEX `blocks_tenant_ref` ON `blocks` (`tenant_id`,`ref_id`) WHERE ref_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `course_modules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`position` integer NOT NULL,
	`cover_image_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `course_modules_tenant_course` ON `course_modules` (`tenant_id`,`course_id`,`position`);--> statement-breakpoint
CREATE TABLE `courses` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`slug` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`sequential_required` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`cover_image_id` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `courses_slug_live` ON `courses` (`tenant_id`,`slug`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `courses_tenant_position` ON `courses` (`tenant_id`,`position`);--> statement-breakpoint
CREATE TABLE `lesson_groups` (
	`tenant_id` text NOT NULL,
	`lesson_id` text NOT NULL,
	`group_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`lesson_id`, `group_id`)
);
--> statement-breakpoint
CREATE INDEX `lesson_groups_tenant_lesson` ON `lesson_groups` (`tenant_id`,`lesson_id`);--> statement-breakpoint
CREATE INDEX `lesson_groups_tenant_group` ON `lesson_groups` (`tenant_id`,`group_id`);--> statement-breakpoint
CREATE TABLE `lessons` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`module_id` text NOT NULL,
	`title` text NOT NULL,
	`position` integer NOT NULL,
	`screenshot_protection_enabled` integer DEFAULT false NOT NULL,
	`cover_image_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `lessons_tenant_module` ON `lessons` (`tenant_id`,`module_id`,`position`);--> statement-breakpoint
CREATE INDEX `lessons_tenant_course` ON `lessons` (`tenant_id`,`course_id`);--> statement-breakpoint
CREATE TABLE `tree_copy_map` (
	`tenant_id` text NOT NULL,
	`copy_id` text NOT NULL,
	`old_id` text NOT NULL,
	`new_id` text NOT NULL,
	PRIMARY KEY(`copy_id`, `old_id`)
);
--> statement-breakpoint
CREATE INDEX `tree_copy_map_tenant_copy` ON `tree_copy_map` (`tenant_id`,`copy_id`);--> statement-breakpoint
CREATE TABLE `block_completions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`lesson_id` text NOT NULL,
	`block_id` text NOT NULL,
	`student_id` text NOT NULL,
	`enrollment_id` text NOT NULL,
	`source` text NOT NULL,
	`completed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `block_completions_block_student` ON `block_completions` (`block_id`,`student_id`);--> statement-breakpoint
CREATE INDEX `block_completions_tenant_student_course` ON `block_completions` (`tenant_id`,`student_id`,`course_id`);--> statement-breakpoint
CREATE INDEX `block_completions_tenant_lesson` ON `block_completions` (`tenant_id`,`lesson_id`);--> statement-breakpoint
CREATE TABLE `enrollment_sources` (
	`tenant_id` text NOT NULL,
	`enrollment_id` text NOT NULL,
	`course_id` text NOT NULL,
	`student_id` text NOT NULL,
	`kind` text NOT NULL,
	`group_id` text,
	`source_key` text NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`enrollment_id`, `source_key`)
);
--> statement-breakpoint
CREATE INDEX `enrollment_sources_tenant_course` ON `enrollment_sources` (`tenant_id`,`course_id`,`student_id`);--> statement-breakpoint
CREATE INDEX `enrollment_sources_tenant_group` ON `enrollment_sources` (`tenant_id`,`group_id`) WHERE group_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `enrollments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`student_id` text NOT NULL,
	`enrolled_at` integer NOT NULL,
	`enrolled_by` text,
	`removed_at` integer,
	`last_accessed_block_id` text,
	`last_accessed_at` integer,
	`blocks_completed` integer DEFAULT 0 NOT NULL,
	`total_blocks` integer DEFAULT 0 NOT NULL,
	`completed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `enrollments_course_student` ON `enrollments` (`course_id`,`student_id`);--> statement-breakpoint
CREATE INDEX `enrollments_tenant_course` ON `enrollments` (`tenant_id`,`course_id`,`removed_at`);--> statement-breakpoint
CREATE INDEX `enrollments_tenant_student` ON `enrollments` (`tenant_id`,`student_id`,`removed_at`);--> statement-breakpoint
CREATE TABLE `course_group_enrollments` (
	`id` text NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`group_id` text NOT NULL,
	`enrolled_at` integer NOT NULL,
	`enrolled_by` text,
	PRIMARY KEY(`course_id`, `group_id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `course_group_enrollments_id` ON `course_group_enrollments` (`id`);--> statement-breakpoint
CREATE INDEX `course_group_enrollments_tenant_course` ON `course_group_enrollments` (`tenant_id`,`course_id`);--> statement-breakpoint
CREATE INDEX `course_group_enrollments_tenant_group` ON `course_group_enrollments` (`tenant_id`,`group_id`);--> statement-breakpoint
CREATE TABLE `learning_path_courses` (
	`tenant_id` text NOT NULL,
	`path_id` text NOT NULL,
	`course_id` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`path_id`, `course_id`)
);
--> statement-breakpoint
CREATE INDEX `learning_path_courses_tenant_path` ON `learning_path_courses` (`tenant_id`,`path_id`,`position`);--> statement-breakpoint
CREATE INDEX `learning_path_courses_tenant_course` ON `learning_path_courses` (`tenant_id`,`course_id`);--> statement-breakpoint
CREATE TABLE `learning_paths` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `learning_paths_tenant_status` ON `learning_paths` (`tenant_id`,`status`);--> statement-breakpoint
CREATE TABLE `scan_marks` (
	`tenant_id` text NOT NULL,
	`mark_key` text PRIMARY KEY NOT NULL,
	`until` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `scan_marks_tenant_until` ON `scan_marks` (`tenant_id`,`until`);--> statement-breakpoint
CREATE TABLE `schedule_windows` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`course_id` text NOT NULL,
	`group_id` text,
	`grid_key` text NOT NULL,
	`level` text NOT NULL,
	`module_id` text,
	`lesson_id` text,
	`node_id` text NOT NULL,
	`starts_at` integer,
	`ends_at` integer,
	`allow_before_start` integer DEFAULT false NOT NULL,
	`allow_after_end` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `schedule_windows_node_live` ON `schedule_windows` (`grid_key`,`node_id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `schedule_windows_tenant_course` ON `schedule_windows` (`tenant_id`,`course_id`,`grid_key`);--> statement-breakpoint
CREATE TABLE `quiz_answers` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`question_id` text NOT NULL,
	`text` text DEFAULT '' NOT NULL,
	`image_asset_id` text,
	`is_correct` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `quiz_answers_tenant_question` ON `quiz_answers` (`tenant_id`,`question_id`,`deleted_at`,`position`);--> statement-breakpoint
CREATE TABLE `quiz_attempt_answers` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`attempt_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`user_id` text NOT NULL,
	`question_id` text NOT NULL,
	`payload` text NOT NULL,
	`client_seq` integer,
	`awarded_hundredths` integer,
	`is_correct` integer,
	`feedback` text,
	`graded_by` text,
	`graded_at` integer,
	`saved_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `quiz_attempt_answers_attempt_question` ON `quiz_attempt_answers` (`attempt_id`,`question_id`);--> statement-breakpoint
CREATE INDEX `quiz_attempt_answers_tenant_quiz` ON `quiz_attempt_answers` (`tenant_id`,`quiz_id`,`question_id`);--> statement-breakpoint
CREATE TABLE `quiz_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`user_id` text NOT NULL,
	`actor_role` text NOT NULL,
	`status` text DEFAULT 'in_progress' NOT NULL,
	`exam_attempt_id` text,
	`started_at` integer NOT NULL,
	`deadline_at` integer,
	`submitted_at` integer,
	`auto_finalized` integer DEFAULT false NOT NULL,
	`score_hundredths` integer,
	`max_score_hundredths` integer,
	`score_pct_hundredths` integer,
	`pending_review` integer DEFAULT false NOT NULL,
	`passed` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `quiz_attempts_tenant_quiz` ON `quiz_attempts` (`tenant_id`,`quiz_id`,`status`,`submitted_at`);--> statement-breakpoint
CREATE INDEX `quiz_attempts_tenant_user` ON `quiz_attempts` (`tenant_id`,`user_id`,`quiz_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `quiz_attempts_one_in_progress` ON `quiz_attempts` (`quiz_id`,`user_id`) WHERE status = 'in_progress' AND exam_attempt_id IS NULL;--> statement-breakpoint
CREATE TABLE `quiz_matches` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`question_id` text NOT NULL,
	`left_text` text,
	`right_text` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `quiz_matches_tenant_question` ON `quiz_matches` (`tenant_id`,`question_id`,`deleted_at`,`position`);--> statement-breakpoint
CREATE TABLE `quiz_questions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`type` text NOT NULL,
	`prompt` text DEFAULT '' NOT NULL,
	`image_asset_id` text,
	`position` integer NOT NULL,
	`points_hundredths` integer DEFAULT 100 NOT NULL,
	`scoring_mode` text,
	`correct_text` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `quiz_questions_tenant_quiz` ON `quiz_questions` (`tenant_id`,`quiz_id`,`deleted_at`,`position`);--> statement-breakpoint
CREATE TABLE `quizzes` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`max_attempts` integer,
	`time_limit_seconds` integer,
	`passing_score` integer,
	`retake_policy` text DEFAULT 'best' NOT NULL,
	`default_scoring_mode` text DEFAULT 'all_or_nothing' NOT NULL,
	`screenshot_protection_enabled` integer DEFAULT false NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `quizzes_tenant_title` ON `quizzes` (`tenant_id`,`deleted_at`,`title`);--> statement-breakpoint
CREATE TABLE `exam_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`exam_id` text NOT NULL,
	`user_id` text NOT NULL,
	`actor_role` text NOT NULL,
	`status` text DEFAULT 'in_progress' NOT NULL,
	`started_at` integer NOT NULL,
	`deadline_at` integer NOT NULL,
	`submitted_at` integer,
	`auto_finalized` integer DEFAULT false NOT NULL,
	`final_score_hundredths` integer,
	`final_max_hundredths` integer,
	`final_score_pct_hundredths` integer,
	`passed` integer,
	`warned_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `exam_attempts_tenant_exam` ON `exam_attempts` (`tenant_id`,`exam_id`,`status`);--> statement-breakpoint
CREATE INDEX `exam_attempts_tenant_user` ON `exam_attempts` (`tenant_id`,`user_id`,`exam_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `exam_attempts_one_in_progress` ON `exam_attempts` (`exam_id`,`user_id`) WHERE status = 'in_progress';--> statement-breakpoint
CREATE TABLE `exam_section_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`exam_attempt_id` text NOT NULL,
	`exam_section_id` text NOT NULL,
	`quiz_attempt_id` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `exam_section_attempts_once` ON `exam_section_attempts` (`exam_attempt_id`,`exam_section_id`);--> statement-breakpoint
CREATE INDEX `exam_section_attempts_tenant_attempt` ON `exam_section_attempts` (`tenant_id`,`exam_attempt_id`);--> statement-breakpoint
CREATE TABLE `exam_sections` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`exam_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`title` text NOT NULL,
	`position` integer NOT NULL,
	`weight` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `exam_sections_tenant_exam` ON `exam_sections` (`tenant_id`,`exam_id`,`deleted_at`,`position`);--> statement-breakpoint
CREATE INDEX `exam_sections_tenant_quiz` ON `exam_sections` (`tenant_id`,`quiz_id`);--> statement-breakpoint
CREATE TABLE `exams` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`time_limit_seconds` integer NOT NULL,
	`passing_score` integer,
	`max_attempts` integer,
	`retake_policy` text DEFAULT 'best' NOT NULL,
	`screenshot_protection_enabled` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`published_at` integer,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `exams_tenant_status` ON `exams` (`tenant_id`,`deleted_at`,`status`);--> statement-breakpoint
CREATE TABLE `assignment_attachments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`assignment_id` text NOT NULL,
	`media_asset_id` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `assignment_attachments_asset` ON `assignment_attachments` (`tenant_id`,`assignment_id`,`media_asset_id`);--> statement-breakpoint
CREATE INDEX `assignment_attachments_position` ON `assignment_attachments` (`tenant_id`,`assignment_id`,`position`);--> statement-breakpoint
CREATE TABLE `assignment_group_targets` (
	`tenant_id` text NOT NULL,
	`assignment_id` text NOT NULL,
	`group_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `assignment_id`, `group_id`)
);
--> statement-breakpoint
CREATE INDEX `assignment_group_targets_group` ON `assignment_group_targets` (`tenant_id`,`group_id`);--> statement-breakpoint
CREATE TABLE `assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`title` text NOT NULL,
	`instructions` text DEFAULT '' NOT NULL,
	`max_score_hundredths` integer DEFAULT 10000 NOT NULL,
	`max_attempts` integer,
	`screenshot_protection_enabled` integer DEFAULT false NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE INDEX `assignments_tenant_created` ON `assignments` (`tenant_id`,`deleted_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `submission_attachments` (
	`tenant_id` text NOT NULL,
	`submission_id` text NOT NULL,
	`student_id` text NOT NULL,
	`media_asset_id` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `submission_id`, `media_asset_id`)
);
--> statement-breakpoint
CREATE INDEX `submission_attachments_student` ON `submission_attachments` (`tenant_id`,`student_id`);--> statement-breakpoint
CREATE TABLE `submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`assignment_id` text NOT NULL,
	`student_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`text` text,
	`score_hundredths` integer,
	`feedback` text,
	`graded_by_id` text,
	`graded_at` integer,
	`submitted_at` integer,
	`reopened_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `submissions_attempt` ON `submissions` (`tenant_id`,`assignment_id`,`student_id`,`attempt`);--> statement-breakpoint
CREATE INDEX `submissions_tenant_assignment_status` ON `submissions` (`tenant_id`,`assignment_id`,`status`);--> statement-breakpoint
CREATE INDEX `submissions_tenant_student` ON `submissions` (`tenant_id`,`student_id`,`status`);--> statement-breakpoint
CREATE TABLE `point_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`student_id` text NOT NULL,
	`source_type` text NOT NULL,
	`target_id` text,
	`source_key` text NOT NULL,
	`points_hundredths` integer NOT NULL,
	`rule_id` text,
	`reason` text,
	`actor_user_id` text,
	`awarded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `point_events_source_key` ON `point_events` (`tenant_id`,`source_key`);--> statement-breakpoint
CREATE INDEX `point_events_student` ON `point_events` (`tenant_id`,`student_id`,`awarded_at`);--> statement-breakpoint
CREATE INDEX `point_events_student_target` ON `point_events` (`tenant_id`,`student_id`,`source_type`,`target_id`);--> statement-breakpoint
CREATE INDEX `point_events_awarded` ON `point_events` (`tenant_id`,`awarded_at`);--> statement-breakpoint
CREATE INDEX `point_events_target` ON `point_events` (`tenant_id`,`target_id`);--> statement-breakpoint
CREATE TABLE `rating_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`source_type` text NOT NULL,
	`target_id` text,
	`enabled` integer,
	`points_hundredths` integer,
	`calc_mode` text,
	`threshold_source` text,
	`threshold_value_hundredths` integer,
	`award_only_if_passed` integer,
	`repeat_behavior` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rating_rules_default` ON `rating_rules` (`tenant_id`,`source_type`) WHERE target_id IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `rating_rules_override` ON `rating_rules` (`tenant_id`,`source_type`,`target_id`) WHERE target_id IS NOT NULL AND deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `rating_totals` (
	`tenant_id` text NOT NULL,
	`student_id` text NOT NULL,
	`points_hundredths` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `student_id`)
);
--> statement-breakpoint
CREATE INDEX `rating_totals_points` ON `rating_totals` (`tenant_id`,`points_hundredths`);