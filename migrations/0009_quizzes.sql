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
CREATE INDEX `quizzes_tenant_title` ON `quizzes` (`tenant_id`,`deleted_at`,`title`);