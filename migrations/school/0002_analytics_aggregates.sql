CREATE TABLE `exam_attempt_stats` (
	`tenant_id` text NOT NULL,
	`exam_id` text NOT NULL,
	`staff` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`submitted` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tenant_id`, `exam_id`, `staff`)
);
--> statement-breakpoint
CREATE TABLE `exam_score_stats` (
	`tenant_id` text NOT NULL,
	`exam_id` text NOT NULL,
	`staff` integer NOT NULL,
	`score_pct_hundredths` integer NOT NULL,
	`submitted` integer DEFAULT 0 NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`)
);
--> statement-breakpoint
CREATE TABLE `exam_section_stats` (
	`tenant_id` text NOT NULL,
	`exam_id` text NOT NULL,
	`exam_section_id` text NOT NULL,
	`staff` integer NOT NULL,
	`pct_sum` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tenant_id`, `exam_id`, `exam_section_id`, `staff`)
);
--> statement-breakpoint
CREATE TABLE `quiz_attempt_stats` (
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`staff` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`submitted` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tenant_id`, `quiz_id`, `staff`)
);
--> statement-breakpoint
CREATE TABLE `quiz_question_stats` (
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`question_id` text NOT NULL,
	`staff` integer NOT NULL,
	`answered` integer DEFAULT 0 NOT NULL,
	`correct` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tenant_id`, `quiz_id`, `question_id`, `staff`)
);
--> statement-breakpoint
CREATE TABLE `quiz_score_stats` (
	`tenant_id` text NOT NULL,
	`quiz_id` text NOT NULL,
	`staff` integer NOT NULL,
	`score_pct_hundredths` integer NOT NULL,
	`settled` integer DEFAULT 0 NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`)
);
--> statement-breakpoint
-- Quiz analytics aggregates, kept exact inside the statement that changes an attempt, an answer or a member's deletion, whichever area writes it (docs/decisions/heavy-reads.md, "Analytics aggregates"); drizzle-kit does not declare triggers. Every figure is an add of the new row's share and a subtract of the old one's.
CREATE TRIGGER `quiz_attempts_stats_insert` AFTER INSERT ON `quiz_attempts` BEGIN
	INSERT INTO `quiz_attempt_stats` (`tenant_id`, `quiz_id`, `staff`, `attempts`, `submitted`)
	SELECT NEW.`tenant_id`, NEW.`quiz_id`, NEW.`actor_role` <> 'student', 1, 1 * (NEW.`status` = 'submitted')
	WHERE NEW.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `quiz_score_stats` (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`, `settled`, `passed`)
	SELECT NEW.`tenant_id`, NEW.`quiz_id`, NEW.`actor_role` <> 'student', coalesce(NEW.`score_pct_hundredths`, 0), 1, 1 * coalesce(NEW.`passed` = 1, 0)
	WHERE NEW.`status` = 'submitted' AND NEW.`pending_review` = 0 AND NEW.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `settled` = `settled` + excluded.`settled`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT NEW.`tenant_id`, NEW.`quiz_id`, ans.`question_id`, NEW.`actor_role` <> 'student', 1 * count(*), 1 * coalesce(sum(ans.`is_correct` = 1), 0)
	FROM `quiz_attempt_answers` ans
	WHERE ans.`attempt_id` = NEW.`id` AND +ans.`tenant_id` = NEW.`tenant_id` AND +ans.`quiz_id` = NEW.`quiz_id` AND NEW.`status` = 'submitted' AND NEW.`pending_review` = 0 AND NEW.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY ans.`question_id`
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempts_stats_update` AFTER UPDATE OF `status`, `pending_review`, `passed`, `score_pct_hundredths`, `exam_attempt_id`, `actor_role`, `quiz_id`, `user_id`, `tenant_id` ON `quiz_attempts` BEGIN
	INSERT INTO `quiz_attempt_stats` (`tenant_id`, `quiz_id`, `staff`, `attempts`, `submitted`)
	SELECT OLD.`tenant_id`, OLD.`quiz_id`, OLD.`actor_role` <> 'student', -1, -1 * (OLD.`status` = 'submitted')
	WHERE OLD.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `quiz_score_stats` (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`, `settled`, `passed`)
	SELECT OLD.`tenant_id`, OLD.`quiz_id`, OLD.`actor_role` <> 'student', coalesce(OLD.`score_pct_hundredths`, 0), -1, -1 * coalesce(OLD.`passed` = 1, 0)
	WHERE OLD.`status` = 'submitted' AND OLD.`pending_review` = 0 AND OLD.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `settled` = `settled` + excluded.`settled`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `quiz_attempt_stats` (`tenant_id`, `quiz_id`, `staff`, `attempts`, `submitted`)
	SELECT NEW.`tenant_id`, NEW.`quiz_id`, NEW.`actor_role` <> 'student', 1, 1 * (NEW.`status` = 'submitted')
	WHERE NEW.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `quiz_score_stats` (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`, `settled`, `passed`)
	SELECT NEW.`tenant_id`, NEW.`quiz_id`, NEW.`actor_role` <> 'student', coalesce(NEW.`score_pct_hundredths`, 0), 1, 1 * coalesce(NEW.`passed` = 1, 0)
	WHERE NEW.`status` = 'submitted' AND NEW.`pending_review` = 0 AND NEW.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `settled` = `settled` + excluded.`settled`, `passed` = `passed` + excluded.`passed`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempts_question_stats_update` AFTER UPDATE OF `status`, `pending_review`, `passed`, `score_pct_hundredths`, `exam_attempt_id`, `actor_role`, `quiz_id`, `user_id`, `tenant_id` ON `quiz_attempts` WHEN (OLD.`status` = 'submitted' AND OLD.`pending_review` = 0) IS NOT (NEW.`status` = 'submitted' AND NEW.`pending_review` = 0) OR OLD.`actor_role` IS NOT NEW.`actor_role` OR OLD.`quiz_id` IS NOT NEW.`quiz_id` OR OLD.`exam_attempt_id` IS NOT NEW.`exam_attempt_id` OR OLD.`user_id` IS NOT NEW.`user_id` OR OLD.`tenant_id` IS NOT NEW.`tenant_id` BEGIN
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT OLD.`tenant_id`, OLD.`quiz_id`, ans.`question_id`, OLD.`actor_role` <> 'student', -1 * count(*), -1 * coalesce(sum(ans.`is_correct` = 1), 0)
	FROM `quiz_attempt_answers` ans
	WHERE ans.`attempt_id` = OLD.`id` AND +ans.`tenant_id` = OLD.`tenant_id` AND +ans.`quiz_id` = OLD.`quiz_id` AND OLD.`status` = 'submitted' AND OLD.`pending_review` = 0 AND OLD.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY ans.`question_id`
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT NEW.`tenant_id`, NEW.`quiz_id`, ans.`question_id`, NEW.`actor_role` <> 'student', 1 * count(*), 1 * coalesce(sum(ans.`is_correct` = 1), 0)
	FROM `quiz_attempt_answers` ans
	WHERE ans.`attempt_id` = NEW.`id` AND +ans.`tenant_id` = NEW.`tenant_id` AND +ans.`quiz_id` = NEW.`quiz_id` AND NEW.`status` = 'submitted' AND NEW.`pending_review` = 0 AND NEW.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY ans.`question_id`
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempts_stats_delete` AFTER DELETE ON `quiz_attempts` BEGIN
	INSERT INTO `quiz_attempt_stats` (`tenant_id`, `quiz_id`, `staff`, `attempts`, `submitted`)
	SELECT OLD.`tenant_id`, OLD.`quiz_id`, OLD.`actor_role` <> 'student', -1, -1 * (OLD.`status` = 'submitted')
	WHERE OLD.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `quiz_score_stats` (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`, `settled`, `passed`)
	SELECT OLD.`tenant_id`, OLD.`quiz_id`, OLD.`actor_role` <> 'student', coalesce(OLD.`score_pct_hundredths`, 0), -1, -1 * coalesce(OLD.`passed` = 1, 0)
	WHERE OLD.`status` = 'submitted' AND OLD.`pending_review` = 0 AND OLD.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `settled` = `settled` + excluded.`settled`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT OLD.`tenant_id`, OLD.`quiz_id`, ans.`question_id`, OLD.`actor_role` <> 'student', -1 * count(*), -1 * coalesce(sum(ans.`is_correct` = 1), 0)
	FROM `quiz_attempt_answers` ans
	WHERE ans.`attempt_id` = OLD.`id` AND +ans.`tenant_id` = OLD.`tenant_id` AND +ans.`quiz_id` = OLD.`quiz_id` AND OLD.`status` = 'submitted' AND OLD.`pending_review` = 0 AND OLD.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY ans.`question_id`
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempt_answers_stats_insert` AFTER INSERT ON `quiz_attempt_answers` BEGIN
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, NEW.`question_id`, a.`actor_role` <> 'student', 1, 1 * coalesce(NEW.`is_correct` = 1, 0)
	FROM `quiz_attempts` a
	WHERE a.`id` = NEW.`attempt_id` AND +a.`tenant_id` = NEW.`tenant_id` AND +a.`quiz_id` = NEW.`quiz_id` AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND a.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempt_answers_stats_update` AFTER UPDATE OF `is_correct`, `question_id`, `attempt_id`, `quiz_id`, `tenant_id` ON `quiz_attempt_answers` BEGIN
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, OLD.`question_id`, a.`actor_role` <> 'student', -1, -1 * coalesce(OLD.`is_correct` = 1, 0)
	FROM `quiz_attempts` a
	WHERE a.`id` = OLD.`attempt_id` AND +a.`tenant_id` = OLD.`tenant_id` AND +a.`quiz_id` = OLD.`quiz_id` AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND a.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, NEW.`question_id`, a.`actor_role` <> 'student', 1, 1 * coalesce(NEW.`is_correct` = 1, 0)
	FROM `quiz_attempts` a
	WHERE a.`id` = NEW.`attempt_id` AND +a.`tenant_id` = NEW.`tenant_id` AND +a.`quiz_id` = NEW.`quiz_id` AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND a.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempt_answers_stats_delete` AFTER DELETE ON `quiz_attempt_answers` BEGIN
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, OLD.`question_id`, a.`actor_role` <> 'student', -1, -1 * coalesce(OLD.`is_correct` = 1, 0)
	FROM `quiz_attempts` a
	WHERE a.`id` = OLD.`attempt_id` AND +a.`tenant_id` = OLD.`tenant_id` AND +a.`quiz_id` = OLD.`quiz_id` AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND a.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `users_quiz_stats_deleted` AFTER UPDATE OF `deleted_at` ON `users` WHEN OLD.`deleted_at` IS NULL AND NEW.`deleted_at` IS NOT NULL AND OLD.`tenant_id` IS NOT NULL BEGIN
	INSERT INTO `quiz_attempt_stats` (`tenant_id`, `quiz_id`, `staff`, `attempts`, `submitted`)
	SELECT a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', -1 * count(*), -1 * sum(a.`status` = 'submitted')
	FROM `quiz_attempts` a WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`exam_attempt_id` IS NULL
	GROUP BY a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student'
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `quiz_score_stats` (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`, `settled`, `passed`)
	SELECT a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', coalesce(a.`score_pct_hundredths`, 0), -1 * count(*), -1 * coalesce(sum(a.`passed` = 1), 0)
	FROM `quiz_attempts` a WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0
	GROUP BY a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', coalesce(a.`score_pct_hundredths`, 0)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `settled` = `settled` + excluded.`settled`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, ans.`question_id`, a.`actor_role` <> 'student', -1 * count(*), -1 * coalesce(sum(ans.`is_correct` = 1), 0)
	FROM `quiz_attempts` a CROSS JOIN `quiz_attempt_answers` ans
	WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND ans.`attempt_id` = a.`id` AND +ans.`tenant_id` = a.`tenant_id` AND +ans.`quiz_id` = a.`quiz_id`
	GROUP BY a.`tenant_id`, a.`quiz_id`, ans.`question_id`, a.`actor_role` <> 'student'
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `users_quiz_stats_restored` AFTER UPDATE OF `deleted_at` ON `users` WHEN OLD.`deleted_at` IS NOT NULL AND NEW.`deleted_at` IS NULL AND NEW.`tenant_id` IS NOT NULL BEGIN
	INSERT INTO `quiz_attempt_stats` (`tenant_id`, `quiz_id`, `staff`, `attempts`, `submitted`)
	SELECT a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', 1 * count(*), 1 * sum(a.`status` = 'submitted')
	FROM `quiz_attempts` a WHERE a.`tenant_id` = NEW.`tenant_id` AND a.`user_id` = NEW.`id` AND a.`exam_attempt_id` IS NULL
	GROUP BY a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student'
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `quiz_score_stats` (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`, `settled`, `passed`)
	SELECT a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', coalesce(a.`score_pct_hundredths`, 0), 1 * count(*), 1 * coalesce(sum(a.`passed` = 1), 0)
	FROM `quiz_attempts` a WHERE a.`tenant_id` = NEW.`tenant_id` AND a.`user_id` = NEW.`id` AND a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0
	GROUP BY a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', coalesce(a.`score_pct_hundredths`, 0)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `settled` = `settled` + excluded.`settled`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, ans.`question_id`, a.`actor_role` <> 'student', 1 * count(*), 1 * coalesce(sum(ans.`is_correct` = 1), 0)
	FROM `quiz_attempts` a CROSS JOIN `quiz_attempt_answers` ans
	WHERE a.`tenant_id` = NEW.`tenant_id` AND a.`user_id` = NEW.`id` AND a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND ans.`attempt_id` = a.`id` AND +ans.`tenant_id` = a.`tenant_id` AND +ans.`quiz_id` = a.`quiz_id`
	GROUP BY a.`tenant_id`, a.`quiz_id`, ans.`question_id`, a.`actor_role` <> 'student'
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `users_quiz_stats_removed` AFTER DELETE ON `users` WHEN OLD.`deleted_at` IS NULL AND OLD.`tenant_id` IS NOT NULL BEGIN
	INSERT INTO `quiz_attempt_stats` (`tenant_id`, `quiz_id`, `staff`, `attempts`, `submitted`)
	SELECT a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', -1 * count(*), -1 * sum(a.`status` = 'submitted')
	FROM `quiz_attempts` a WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`exam_attempt_id` IS NULL
	GROUP BY a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student'
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `quiz_score_stats` (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`, `settled`, `passed`)
	SELECT a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', coalesce(a.`score_pct_hundredths`, 0), -1 * count(*), -1 * coalesce(sum(a.`passed` = 1), 0)
	FROM `quiz_attempts` a WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0
	GROUP BY a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', coalesce(a.`score_pct_hundredths`, 0)
	ON CONFLICT (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `settled` = `settled` + excluded.`settled`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, ans.`question_id`, a.`actor_role` <> 'student', -1 * count(*), -1 * coalesce(sum(ans.`is_correct` = 1), 0)
	FROM `quiz_attempts` a CROSS JOIN `quiz_attempt_answers` ans
	WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND ans.`attempt_id` = a.`id` AND +ans.`tenant_id` = a.`tenant_id` AND +ans.`quiz_id` = a.`quiz_id`
	GROUP BY a.`tenant_id`, a.`quiz_id`, ans.`question_id`, a.`actor_role` <> 'student'
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
-- Backfill: the same figures over the rows already there.
INSERT INTO `quiz_attempt_stats` (`tenant_id`, `quiz_id`, `staff`, `attempts`, `submitted`)
SELECT a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', count(*), sum(a.`status` = 'submitted')
FROM `quiz_attempts` a JOIN `users` u ON u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL
WHERE a.`exam_attempt_id` IS NULL
GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO `quiz_score_stats` (`tenant_id`, `quiz_id`, `staff`, `score_pct_hundredths`, `settled`, `passed`)
SELECT a.`tenant_id`, a.`quiz_id`, a.`actor_role` <> 'student', coalesce(a.`score_pct_hundredths`, 0), count(*), coalesce(sum(a.`passed` = 1), 0)
FROM `quiz_attempts` a JOIN `users` u ON u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL
WHERE a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
SELECT a.`tenant_id`, a.`quiz_id`, ans.`question_id`, a.`actor_role` <> 'student', count(*), coalesce(sum(ans.`is_correct` = 1), 0)
FROM `quiz_attempts` a JOIN `users` u ON u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL
JOIN `quiz_attempt_answers` ans ON ans.`attempt_id` = a.`id` AND +ans.`tenant_id` = a.`tenant_id` AND +ans.`quiz_id` = a.`quiz_id`
WHERE a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
-- Exam analytics aggregates, kept the same way (docs/decisions/heavy-reads.md, "Analytics aggregates"): a section's percent counts once its exam attempt is submitted, from the quiz attempt its section attempt names.
CREATE TRIGGER `exam_attempts_stats_insert` AFTER INSERT ON `exam_attempts` BEGIN
	INSERT INTO `exam_attempt_stats` (`tenant_id`, `exam_id`, `staff`, `attempts`, `submitted`)
	SELECT NEW.`tenant_id`, NEW.`exam_id`, NEW.`actor_role` <> 'student', 1, 1 * (NEW.`status` = 'submitted')
	WHERE EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `exam_score_stats` (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`, `submitted`, `passed`)
	SELECT NEW.`tenant_id`, NEW.`exam_id`, NEW.`actor_role` <> 'student', coalesce(NEW.`final_score_pct_hundredths`, 0), 1, 1 * coalesce(NEW.`passed` = 1, 0)
	WHERE NEW.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `submitted` = `submitted` + excluded.`submitted`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT NEW.`tenant_id`, NEW.`exam_id`, e.`exam_section_id`, NEW.`actor_role` <> 'student', 1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_section_attempts` e CROSS JOIN `quiz_attempts` q
	WHERE 1 AND e.`tenant_id` = NEW.`tenant_id` AND e.`exam_attempt_id` = NEW.`id` AND q.`tenant_id` = NEW.`tenant_id` AND q.`id` = e.`quiz_attempt_id` AND q.`exam_attempt_id` = e.`exam_attempt_id`
	  AND NEW.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `exam_attempts_stats_update` AFTER UPDATE OF `status`, `final_score_pct_hundredths`, `passed`, `actor_role`, `user_id`, `exam_id`, `tenant_id` ON `exam_attempts` BEGIN
	INSERT INTO `exam_attempt_stats` (`tenant_id`, `exam_id`, `staff`, `attempts`, `submitted`)
	SELECT OLD.`tenant_id`, OLD.`exam_id`, OLD.`actor_role` <> 'student', -1, -1 * (OLD.`status` = 'submitted')
	WHERE EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `exam_score_stats` (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`, `submitted`, `passed`)
	SELECT OLD.`tenant_id`, OLD.`exam_id`, OLD.`actor_role` <> 'student', coalesce(OLD.`final_score_pct_hundredths`, 0), -1, -1 * coalesce(OLD.`passed` = 1, 0)
	WHERE OLD.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `submitted` = `submitted` + excluded.`submitted`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `exam_attempt_stats` (`tenant_id`, `exam_id`, `staff`, `attempts`, `submitted`)
	SELECT NEW.`tenant_id`, NEW.`exam_id`, NEW.`actor_role` <> 'student', 1, 1 * (NEW.`status` = 'submitted')
	WHERE EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `exam_score_stats` (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`, `submitted`, `passed`)
	SELECT NEW.`tenant_id`, NEW.`exam_id`, NEW.`actor_role` <> 'student', coalesce(NEW.`final_score_pct_hundredths`, 0), 1, 1 * coalesce(NEW.`passed` = 1, 0)
	WHERE NEW.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `submitted` = `submitted` + excluded.`submitted`, `passed` = `passed` + excluded.`passed`;
END;
--> statement-breakpoint
CREATE TRIGGER `exam_attempts_section_stats_update` AFTER UPDATE OF `status`, `final_score_pct_hundredths`, `passed`, `actor_role`, `user_id`, `exam_id`, `tenant_id` ON `exam_attempts` WHEN (OLD.`status` = 'submitted') IS NOT (NEW.`status` = 'submitted') OR OLD.`actor_role` IS NOT NEW.`actor_role` OR OLD.`user_id` IS NOT NEW.`user_id` OR OLD.`exam_id` IS NOT NEW.`exam_id` OR OLD.`tenant_id` IS NOT NEW.`tenant_id` BEGIN
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT OLD.`tenant_id`, OLD.`exam_id`, e.`exam_section_id`, OLD.`actor_role` <> 'student', -1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_section_attempts` e CROSS JOIN `quiz_attempts` q
	WHERE 1 AND e.`tenant_id` = OLD.`tenant_id` AND e.`exam_attempt_id` = OLD.`id` AND q.`tenant_id` = OLD.`tenant_id` AND q.`id` = e.`quiz_attempt_id` AND q.`exam_attempt_id` = e.`exam_attempt_id`
	  AND OLD.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT NEW.`tenant_id`, NEW.`exam_id`, e.`exam_section_id`, NEW.`actor_role` <> 'student', 1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_section_attempts` e CROSS JOIN `quiz_attempts` q
	WHERE 1 AND e.`tenant_id` = NEW.`tenant_id` AND e.`exam_attempt_id` = NEW.`id` AND q.`tenant_id` = NEW.`tenant_id` AND q.`id` = e.`quiz_attempt_id` AND q.`exam_attempt_id` = e.`exam_attempt_id`
	  AND NEW.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `exam_attempts_stats_delete` AFTER DELETE ON `exam_attempts` BEGIN
	INSERT INTO `exam_attempt_stats` (`tenant_id`, `exam_id`, `staff`, `attempts`, `submitted`)
	SELECT OLD.`tenant_id`, OLD.`exam_id`, OLD.`actor_role` <> 'student', -1, -1 * (OLD.`status` = 'submitted')
	WHERE EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `exam_score_stats` (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`, `submitted`, `passed`)
	SELECT OLD.`tenant_id`, OLD.`exam_id`, OLD.`actor_role` <> 'student', coalesce(OLD.`final_score_pct_hundredths`, 0), -1, -1 * coalesce(OLD.`passed` = 1, 0)
	WHERE OLD.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `submitted` = `submitted` + excluded.`submitted`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT OLD.`tenant_id`, OLD.`exam_id`, e.`exam_section_id`, OLD.`actor_role` <> 'student', -1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_section_attempts` e CROSS JOIN `quiz_attempts` q
	WHERE 1 AND e.`tenant_id` = OLD.`tenant_id` AND e.`exam_attempt_id` = OLD.`id` AND q.`tenant_id` = OLD.`tenant_id` AND q.`id` = e.`quiz_attempt_id` AND q.`exam_attempt_id` = e.`exam_attempt_id`
	  AND OLD.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `exam_section_attempts_stats_insert` AFTER INSERT ON `exam_section_attempts` BEGIN
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, NEW.`exam_section_id`, a.`actor_role` <> 'student', 1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `quiz_attempts` q
	WHERE a.`id` = NEW.`exam_attempt_id` AND NEW.`tenant_id` = a.`tenant_id` AND NEW.`exam_attempt_id` = a.`id` AND q.`tenant_id` = a.`tenant_id` AND q.`id` = NEW.`quiz_attempt_id` AND q.`exam_attempt_id` = NEW.`exam_attempt_id`
	  AND a.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `exam_section_attempts_stats_update` AFTER UPDATE OF `exam_attempt_id`, `exam_section_id`, `quiz_attempt_id`, `tenant_id` ON `exam_section_attempts` BEGIN
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, OLD.`exam_section_id`, a.`actor_role` <> 'student', -1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `quiz_attempts` q
	WHERE a.`id` = OLD.`exam_attempt_id` AND OLD.`tenant_id` = a.`tenant_id` AND OLD.`exam_attempt_id` = a.`id` AND q.`tenant_id` = a.`tenant_id` AND q.`id` = OLD.`quiz_attempt_id` AND q.`exam_attempt_id` = OLD.`exam_attempt_id`
	  AND a.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, NEW.`exam_section_id`, a.`actor_role` <> 'student', 1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `quiz_attempts` q
	WHERE a.`id` = NEW.`exam_attempt_id` AND NEW.`tenant_id` = a.`tenant_id` AND NEW.`exam_attempt_id` = a.`id` AND q.`tenant_id` = a.`tenant_id` AND q.`id` = NEW.`quiz_attempt_id` AND q.`exam_attempt_id` = NEW.`exam_attempt_id`
	  AND a.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `exam_section_attempts_stats_delete` AFTER DELETE ON `exam_section_attempts` BEGIN
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, OLD.`exam_section_id`, a.`actor_role` <> 'student', -1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `quiz_attempts` q
	WHERE a.`id` = OLD.`exam_attempt_id` AND OLD.`tenant_id` = a.`tenant_id` AND OLD.`exam_attempt_id` = a.`id` AND q.`tenant_id` = a.`tenant_id` AND q.`id` = OLD.`quiz_attempt_id` AND q.`exam_attempt_id` = OLD.`exam_attempt_id`
	  AND a.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempts_exam_stats_insert` AFTER INSERT ON `quiz_attempts` WHEN NEW.`exam_attempt_id` IS NOT NULL BEGIN
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, e.`exam_section_id`, a.`actor_role` <> 'student', 1 * sum(CASE WHEN NEW.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(NEW.`score_hundredths`, 0), 0) + NEW.`max_score_hundredths`) / (2 * NEW.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `exam_section_attempts` e
	WHERE a.`id` = NEW.`exam_attempt_id` AND e.`exam_attempt_id` = NEW.`exam_attempt_id` AND e.`tenant_id` = a.`tenant_id` AND e.`exam_attempt_id` = a.`id` AND NEW.`tenant_id` = a.`tenant_id` AND NEW.`id` = e.`quiz_attempt_id` AND NEW.`exam_attempt_id` = e.`exam_attempt_id`
	  AND a.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempts_exam_stats_update` AFTER UPDATE OF `score_hundredths`, `max_score_hundredths`, `exam_attempt_id`, `tenant_id` ON `quiz_attempts` WHEN OLD.`exam_attempt_id` IS NOT NULL OR NEW.`exam_attempt_id` IS NOT NULL BEGIN
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, e.`exam_section_id`, a.`actor_role` <> 'student', -1 * sum(CASE WHEN OLD.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(OLD.`score_hundredths`, 0), 0) + OLD.`max_score_hundredths`) / (2 * OLD.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `exam_section_attempts` e
	WHERE a.`id` = OLD.`exam_attempt_id` AND e.`exam_attempt_id` = OLD.`exam_attempt_id` AND e.`tenant_id` = a.`tenant_id` AND e.`exam_attempt_id` = a.`id` AND OLD.`tenant_id` = a.`tenant_id` AND OLD.`id` = e.`quiz_attempt_id` AND OLD.`exam_attempt_id` = e.`exam_attempt_id`
	  AND a.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, e.`exam_section_id`, a.`actor_role` <> 'student', 1 * sum(CASE WHEN NEW.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(NEW.`score_hundredths`, 0), 0) + NEW.`max_score_hundredths`) / (2 * NEW.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `exam_section_attempts` e
	WHERE a.`id` = NEW.`exam_attempt_id` AND e.`exam_attempt_id` = NEW.`exam_attempt_id` AND e.`tenant_id` = a.`tenant_id` AND e.`exam_attempt_id` = a.`id` AND NEW.`tenant_id` = a.`tenant_id` AND NEW.`id` = e.`quiz_attempt_id` AND NEW.`exam_attempt_id` = e.`exam_attempt_id`
	  AND a.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempts_exam_stats_delete` AFTER DELETE ON `quiz_attempts` WHEN OLD.`exam_attempt_id` IS NOT NULL BEGIN
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, e.`exam_section_id`, a.`actor_role` <> 'student', -1 * sum(CASE WHEN OLD.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(OLD.`score_hundredths`, 0), 0) + OLD.`max_score_hundredths`) / (2 * OLD.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `exam_section_attempts` e
	WHERE a.`id` = OLD.`exam_attempt_id` AND e.`exam_attempt_id` = OLD.`exam_attempt_id` AND e.`tenant_id` = a.`tenant_id` AND e.`exam_attempt_id` = a.`id` AND OLD.`tenant_id` = a.`tenant_id` AND OLD.`id` = e.`quiz_attempt_id` AND OLD.`exam_attempt_id` = e.`exam_attempt_id`
	  AND a.`status` = 'submitted' AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `users_exam_stats_deleted` AFTER UPDATE OF `deleted_at` ON `users` WHEN OLD.`deleted_at` IS NULL AND NEW.`deleted_at` IS NOT NULL AND OLD.`tenant_id` IS NOT NULL BEGIN
	INSERT INTO `exam_attempt_stats` (`tenant_id`, `exam_id`, `staff`, `attempts`, `submitted`)
	SELECT a.`tenant_id`, a.`exam_id`, a.`actor_role` <> 'student', -1 * count(*), -1 * sum(a.`status` = 'submitted')
	FROM `exam_attempts` a WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id`
	GROUP BY 1, 2, 3
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `exam_score_stats` (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`, `submitted`, `passed`)
	SELECT a.`tenant_id`, a.`exam_id`, a.`actor_role` <> 'student', coalesce(a.`final_score_pct_hundredths`, 0), -1 * count(*), -1 * coalesce(sum(a.`passed` = 1), 0)
	FROM `exam_attempts` a WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`status` = 'submitted'
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `submitted` = `submitted` + excluded.`submitted`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, e.`exam_section_id`, a.`actor_role` <> 'student', -1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `exam_section_attempts` e CROSS JOIN `quiz_attempts` q
	WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`status` = 'submitted' AND e.`tenant_id` = a.`tenant_id` AND e.`exam_attempt_id` = a.`id` AND q.`tenant_id` = a.`tenant_id` AND q.`id` = e.`quiz_attempt_id` AND q.`exam_attempt_id` = e.`exam_attempt_id`
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `users_exam_stats_restored` AFTER UPDATE OF `deleted_at` ON `users` WHEN OLD.`deleted_at` IS NOT NULL AND NEW.`deleted_at` IS NULL AND NEW.`tenant_id` IS NOT NULL BEGIN
	INSERT INTO `exam_attempt_stats` (`tenant_id`, `exam_id`, `staff`, `attempts`, `submitted`)
	SELECT a.`tenant_id`, a.`exam_id`, a.`actor_role` <> 'student', 1 * count(*), 1 * sum(a.`status` = 'submitted')
	FROM `exam_attempts` a WHERE a.`tenant_id` = NEW.`tenant_id` AND a.`user_id` = NEW.`id`
	GROUP BY 1, 2, 3
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `exam_score_stats` (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`, `submitted`, `passed`)
	SELECT a.`tenant_id`, a.`exam_id`, a.`actor_role` <> 'student', coalesce(a.`final_score_pct_hundredths`, 0), 1 * count(*), 1 * coalesce(sum(a.`passed` = 1), 0)
	FROM `exam_attempts` a WHERE a.`tenant_id` = NEW.`tenant_id` AND a.`user_id` = NEW.`id` AND a.`status` = 'submitted'
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `submitted` = `submitted` + excluded.`submitted`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, e.`exam_section_id`, a.`actor_role` <> 'student', 1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `exam_section_attempts` e CROSS JOIN `quiz_attempts` q
	WHERE a.`tenant_id` = NEW.`tenant_id` AND a.`user_id` = NEW.`id` AND a.`status` = 'submitted' AND e.`tenant_id` = a.`tenant_id` AND e.`exam_attempt_id` = a.`id` AND q.`tenant_id` = a.`tenant_id` AND q.`id` = e.`quiz_attempt_id` AND q.`exam_attempt_id` = e.`exam_attempt_id`
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
CREATE TRIGGER `users_exam_stats_removed` AFTER DELETE ON `users` WHEN OLD.`deleted_at` IS NULL AND OLD.`tenant_id` IS NOT NULL BEGIN
	INSERT INTO `exam_attempt_stats` (`tenant_id`, `exam_id`, `staff`, `attempts`, `submitted`)
	SELECT a.`tenant_id`, a.`exam_id`, a.`actor_role` <> 'student', -1 * count(*), -1 * sum(a.`status` = 'submitted')
	FROM `exam_attempts` a WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id`
	GROUP BY 1, 2, 3
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`) DO UPDATE SET `attempts` = `attempts` + excluded.`attempts`, `submitted` = `submitted` + excluded.`submitted`;
	INSERT INTO `exam_score_stats` (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`, `submitted`, `passed`)
	SELECT a.`tenant_id`, a.`exam_id`, a.`actor_role` <> 'student', coalesce(a.`final_score_pct_hundredths`, 0), -1 * count(*), -1 * coalesce(sum(a.`passed` = 1), 0)
	FROM `exam_attempts` a WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`status` = 'submitted'
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`) DO UPDATE SET `submitted` = `submitted` + excluded.`submitted`, `passed` = `passed` + excluded.`passed`;
	INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
	SELECT a.`tenant_id`, a.`exam_id`, e.`exam_section_id`, a.`actor_role` <> 'student', -1 * sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
	FROM `exam_attempts` a CROSS JOIN `exam_section_attempts` e CROSS JOIN `quiz_attempts` q
	WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`status` = 'submitted' AND e.`tenant_id` = a.`tenant_id` AND e.`exam_attempt_id` = a.`id` AND q.`tenant_id` = a.`tenant_id` AND q.`id` = e.`quiz_attempt_id` AND q.`exam_attempt_id` = e.`exam_attempt_id`
	GROUP BY 1, 2, 3, 4
	ON CONFLICT (`tenant_id`, `exam_id`, `exam_section_id`, `staff`) DO UPDATE SET `pct_sum` = `pct_sum` + excluded.`pct_sum`;
END;
--> statement-breakpoint
-- Backfill of the exam figures.
INSERT INTO `exam_attempt_stats` (`tenant_id`, `exam_id`, `staff`, `attempts`, `submitted`)
SELECT a.`tenant_id`, a.`exam_id`, a.`actor_role` <> 'student', count(*), sum(a.`status` = 'submitted')
FROM `exam_attempts` a JOIN `users` u ON u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL
GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO `exam_score_stats` (`tenant_id`, `exam_id`, `staff`, `score_pct_hundredths`, `submitted`, `passed`)
SELECT a.`tenant_id`, a.`exam_id`, a.`actor_role` <> 'student', coalesce(a.`final_score_pct_hundredths`, 0), count(*), coalesce(sum(a.`passed` = 1), 0)
FROM `exam_attempts` a JOIN `users` u ON u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL
WHERE a.`status` = 'submitted'
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO `exam_section_stats` (`tenant_id`, `exam_id`, `exam_section_id`, `staff`, `pct_sum`)
SELECT a.`tenant_id`, a.`exam_id`, e.`exam_section_id`, a.`actor_role` <> 'student', sum(CASE WHEN q.`max_score_hundredths` > 0 THEN min(10000, (20000 * max(coalesce(q.`score_hundredths`, 0), 0) + q.`max_score_hundredths`) / (2 * q.`max_score_hundredths`)) ELSE 0 END)
FROM `exam_attempts` a JOIN `users` u ON u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL
JOIN `exam_section_attempts` e ON e.`tenant_id` = a.`tenant_id` AND e.`exam_attempt_id` = a.`id`
JOIN `quiz_attempts` q ON q.`tenant_id` = a.`tenant_id` AND q.`id` = e.`quiz_attempt_id` AND q.`exam_attempt_id` = e.`exam_attempt_id`
WHERE a.`status` = 'submitted'
GROUP BY 1, 2, 3, 4;
