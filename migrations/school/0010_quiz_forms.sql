ALTER TABLE `quiz_attempts` ADD `form_seed` text;--> statement-breakpoint
ALTER TABLE `quiz_attempts` ADD `form_question_ids` text;--> statement-breakpoint
ALTER TABLE `quiz_attempts` ADD `form_shuffle_answers` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `quizzes` ADD `questions_per_attempt` integer;--> statement-breakpoint
ALTER TABLE `quizzes` ADD `shuffle_questions` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `quizzes` ADD `shuffle_answers` integer DEFAULT false NOT NULL;