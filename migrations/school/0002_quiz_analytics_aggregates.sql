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
	WHERE ans.`attempt_id` = NEW.`id` AND ans.`tenant_id` = NEW.`tenant_id` AND ans.`quiz_id` = NEW.`quiz_id` AND NEW.`status` = 'submitted' AND NEW.`pending_review` = 0 AND NEW.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
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
	WHERE ans.`attempt_id` = OLD.`id` AND ans.`tenant_id` = OLD.`tenant_id` AND ans.`quiz_id` = OLD.`quiz_id` AND OLD.`status` = 'submitted' AND OLD.`pending_review` = 0 AND OLD.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY ans.`question_id`
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT NEW.`tenant_id`, NEW.`quiz_id`, ans.`question_id`, NEW.`actor_role` <> 'student', 1 * count(*), 1 * coalesce(sum(ans.`is_correct` = 1), 0)
	FROM `quiz_attempt_answers` ans
	WHERE ans.`attempt_id` = NEW.`id` AND ans.`tenant_id` = NEW.`tenant_id` AND ans.`quiz_id` = NEW.`quiz_id` AND NEW.`status` = 'submitted' AND NEW.`pending_review` = 0 AND NEW.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = NEW.`user_id` AND u.`tenant_id` = NEW.`tenant_id` AND u.`deleted_at` IS NULL)
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
	WHERE ans.`attempt_id` = OLD.`id` AND ans.`tenant_id` = OLD.`tenant_id` AND ans.`quiz_id` = OLD.`quiz_id` AND OLD.`status` = 'submitted' AND OLD.`pending_review` = 0 AND OLD.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = OLD.`user_id` AND u.`tenant_id` = OLD.`tenant_id` AND u.`deleted_at` IS NULL)
	GROUP BY ans.`question_id`
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempt_answers_stats_insert` AFTER INSERT ON `quiz_attempt_answers` BEGIN
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, NEW.`question_id`, a.`actor_role` <> 'student', 1, 1 * coalesce(NEW.`is_correct` = 1, 0)
	FROM `quiz_attempts` a
	WHERE a.`id` = NEW.`attempt_id` AND a.`tenant_id` = NEW.`tenant_id` AND a.`quiz_id` = NEW.`quiz_id` AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND a.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempt_answers_stats_update` AFTER UPDATE OF `is_correct`, `question_id`, `attempt_id`, `quiz_id`, `tenant_id` ON `quiz_attempt_answers` BEGIN
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, OLD.`question_id`, a.`actor_role` <> 'student', -1, -1 * coalesce(OLD.`is_correct` = 1, 0)
	FROM `quiz_attempts` a
	WHERE a.`id` = OLD.`attempt_id` AND a.`tenant_id` = OLD.`tenant_id` AND a.`quiz_id` = OLD.`quiz_id` AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND a.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, NEW.`question_id`, a.`actor_role` <> 'student', 1, 1 * coalesce(NEW.`is_correct` = 1, 0)
	FROM `quiz_attempts` a
	WHERE a.`id` = NEW.`attempt_id` AND a.`tenant_id` = NEW.`tenant_id` AND a.`quiz_id` = NEW.`quiz_id` AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND a.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
	ON CONFLICT (`tenant_id`, `quiz_id`, `question_id`, `staff`) DO UPDATE SET `answered` = `answered` + excluded.`answered`, `correct` = `correct` + excluded.`correct`;
END;
--> statement-breakpoint
CREATE TRIGGER `quiz_attempt_answers_stats_delete` AFTER DELETE ON `quiz_attempt_answers` BEGIN
	INSERT INTO `quiz_question_stats` (`tenant_id`, `quiz_id`, `question_id`, `staff`, `answered`, `correct`)
	SELECT a.`tenant_id`, a.`quiz_id`, OLD.`question_id`, a.`actor_role` <> 'student', -1, -1 * coalesce(OLD.`is_correct` = 1, 0)
	FROM `quiz_attempts` a
	WHERE a.`id` = OLD.`attempt_id` AND a.`tenant_id` = OLD.`tenant_id` AND a.`quiz_id` = OLD.`quiz_id` AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND a.`exam_attempt_id` IS NULL AND EXISTS (SELECT 1 FROM `users` u WHERE u.`id` = a.`user_id` AND u.`tenant_id` = a.`tenant_id` AND u.`deleted_at` IS NULL)
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
	WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND ans.`attempt_id` = a.`id` AND ans.`tenant_id` = a.`tenant_id` AND ans.`quiz_id` = a.`quiz_id`
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
	WHERE a.`tenant_id` = NEW.`tenant_id` AND a.`user_id` = NEW.`id` AND a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND ans.`attempt_id` = a.`id` AND ans.`tenant_id` = a.`tenant_id` AND ans.`quiz_id` = a.`quiz_id`
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
	WHERE a.`tenant_id` = OLD.`tenant_id` AND a.`user_id` = OLD.`id` AND a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0 AND ans.`attempt_id` = a.`id` AND ans.`tenant_id` = a.`tenant_id` AND ans.`quiz_id` = a.`quiz_id`
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
JOIN `quiz_attempt_answers` ans ON ans.`attempt_id` = a.`id` AND ans.`tenant_id` = a.`tenant_id` AND ans.`quiz_id` = a.`quiz_id`
WHERE a.`exam_attempt_id` IS NULL AND a.`status` = 'submitted' AND a.`pending_review` = 0
GROUP BY 1, 2, 3, 4;
