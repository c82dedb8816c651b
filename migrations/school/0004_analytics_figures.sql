CREATE TABLE `exam_figures` (
	`tenant_id` text NOT NULL,
	`exam_id` text NOT NULL,
	`user_id` text NOT NULL,
	`actor_role` text NOT NULL,
	`attempt_count` integer NOT NULL,
	`submitted_count` integer NOT NULL,
	`passed_count` integer NOT NULL,
	`pct_sum` integer,
	`pct_max` integer,
	`pct_min` integer,
	`bucket_0` integer DEFAULT 0 NOT NULL,
	`bucket_1` integer DEFAULT 0 NOT NULL,
	`bucket_2` integer DEFAULT 0 NOT NULL,
	`bucket_3` integer DEFAULT 0 NOT NULL,
	`bucket_4` integer DEFAULT 0 NOT NULL,
	`bucket_5` integer DEFAULT 0 NOT NULL,
	`bucket_6` integer DEFAULT 0 NOT NULL,
	`bucket_7` integer DEFAULT 0 NOT NULL,
	`bucket_8` integer DEFAULT 0 NOT NULL,
	`bucket_9` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tenant_id`, `exam_id`, `user_id`, `actor_role`)
);
--> statement-breakpoint
CREATE TABLE `exam_section_figures` (
	`tenant_id` text NOT NULL,
	`exam_id` text NOT NULL,
	`user_id` text NOT NULL,
	`actor_role` text NOT NULL,
	`section_id` text NOT NULL,
	`pct_sum` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `exam_id`, `user_id`, `actor_role`, `section_id`)
);
--> statement-breakpoint
CREATE TABLE `quiz_figures` (
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`user_id` text NOT NULL,
	`actor_role` text NOT NULL,
	`attempt_count` integer NOT NULL,
	`submitted_count` integer NOT NULL,
	`settled_count` integer NOT NULL,
	`passed_count` integer NOT NULL,
	`pct_sum` integer,
	`pct_max` integer,
	`pct_min` integer,
	`bucket_0` integer DEFAULT 0 NOT NULL,
	`bucket_1` integer DEFAULT 0 NOT NULL,
	`bucket_2` integer DEFAULT 0 NOT NULL,
	`bucket_3` integer DEFAULT 0 NOT NULL,
	`bucket_4` integer DEFAULT 0 NOT NULL,
	`bucket_5` integer DEFAULT 0 NOT NULL,
	`bucket_6` integer DEFAULT 0 NOT NULL,
	`bucket_7` integer DEFAULT 0 NOT NULL,
	`bucket_8` integer DEFAULT 0 NOT NULL,
	`bucket_9` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tenant_id`, `quiz_id`, `user_id`, `actor_role`)
);
--> statement-breakpoint
CREATE TABLE `quiz_question_figures` (
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`user_id` text NOT NULL,
	`actor_role` text NOT NULL,
	`question_id` text NOT NULL,
	`answered` integer NOT NULL,
	`correct` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `quiz_id`, `user_id`, `actor_role`, `question_id`)
);

--> statement-breakpoint
-- Backfill: the figures of every attempt already there (src/content/quizzes/figures.ts, src/content/exams/figures.ts).
INSERT INTO `quiz_figures` (tenant_id, quiz_id, user_id, actor_role, attempt_count, submitted_count, settled_count, passed_count, pct_sum, pct_max, pct_min, bucket_0, bucket_1, bucket_2, bucket_3, bucket_4, bucket_5, bucket_6, bucket_7, bucket_8, bucket_9)
SELECT a.tenant_id, a.quiz_id, a.user_id, a.actor_role, count(*), coalesce(sum(a.status = 'submitted'), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND a.passed = 1), 0),
  sum(CASE WHEN a.status = 'submitted' AND a.pending_review = 0 THEN coalesce(a.score_pct_hundredths, 0) END), max(CASE WHEN a.status = 'submitted' AND a.pending_review = 0 THEN coalesce(a.score_pct_hundredths, 0) END), min(CASE WHEN a.status = 'submitted' AND a.pending_review = 0 THEN coalesce(a.score_pct_hundredths, 0) END), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 0), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 1), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 2), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 3), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 4), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 5), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 6), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 7), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 8), 0), coalesce(sum(a.status = 'submitted' AND a.pending_review = 0 AND min(9, coalesce(a.score_pct_hundredths, 0) / 1000) = 9), 0)
FROM quiz_attempts a WHERE a.exam_attempt_id IS NULL
GROUP BY a.tenant_id, a.quiz_id, a.user_id, a.actor_role;
--> statement-breakpoint
INSERT INTO `quiz_question_figures` (tenant_id, quiz_id, user_id, actor_role, question_id, answered, correct)
SELECT a.tenant_id, a.quiz_id, a.user_id, a.actor_role, ans.question_id, count(*), coalesce(sum(ans.is_correct = 1), 0)
FROM quiz_attempts a JOIN quiz_attempt_answers ans ON ans.attempt_id = a.id AND ans.tenant_id = a.tenant_id AND ans.quiz_id = a.quiz_id
WHERE a.exam_attempt_id IS NULL AND a.status = 'submitted' AND a.pending_review = 0
GROUP BY a.tenant_id, a.quiz_id, a.user_id, a.actor_role, ans.question_id;
--> statement-breakpoint
INSERT INTO `exam_figures` (tenant_id, exam_id, user_id, actor_role, attempt_count, submitted_count, passed_count, pct_sum, pct_max, pct_min, bucket_0, bucket_1, bucket_2, bucket_3, bucket_4, bucket_5, bucket_6, bucket_7, bucket_8, bucket_9)
SELECT ea.tenant_id, ea.exam_id, ea.user_id, ea.actor_role, count(*), coalesce(sum(ea.status = 'submitted'), 0), coalesce(sum(ea.status = 'submitted' AND ea.passed = 1), 0),
  sum(CASE WHEN ea.status = 'submitted' THEN coalesce(ea.final_score_pct_hundredths, 0) END), max(CASE WHEN ea.status = 'submitted' THEN coalesce(ea.final_score_pct_hundredths, 0) END), min(CASE WHEN ea.status = 'submitted' THEN coalesce(ea.final_score_pct_hundredths, 0) END), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 0), 0), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 1), 0), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 2), 0), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 3), 0), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 4), 0), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 5), 0), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 6), 0), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 7), 0), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 8), 0), coalesce(sum(ea.status = 'submitted' AND min(9, coalesce(ea.final_score_pct_hundredths, 0) / 1000) = 9), 0)
FROM exam_attempts ea
GROUP BY ea.tenant_id, ea.exam_id, ea.user_id, ea.actor_role;
--> statement-breakpoint
INSERT INTO `exam_section_figures` (tenant_id, exam_id, user_id, actor_role, section_id, pct_sum)
SELECT ea.tenant_id, ea.exam_id, ea.user_id, ea.actor_role, esa.exam_section_id, coalesce(sum(CASE WHEN qa.max_score_hundredths > 0 THEN min(10000, (20000 * max(coalesce(qa.score_hundredths, 0), 0) + qa.max_score_hundredths) / (2 * qa.max_score_hundredths)) ELSE 0 END), 0)
FROM exam_attempts ea
  JOIN exam_section_attempts esa ON esa.tenant_id = ea.tenant_id AND esa.exam_attempt_id = ea.id
  LEFT JOIN quiz_attempts qa ON qa.tenant_id = ea.tenant_id AND qa.id = esa.quiz_attempt_id AND qa.exam_attempt_id = esa.exam_attempt_id
WHERE ea.status = 'submitted'
GROUP BY ea.tenant_id, ea.exam_id, ea.user_id, ea.actor_role, esa.exam_section_id;
