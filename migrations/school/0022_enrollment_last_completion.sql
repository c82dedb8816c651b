ALTER TABLE `enrollments` ADD `last_completion_at` integer;--> statement-breakpoint
-- Backfill: the student's latest completion in the course, as the completing batches' recount
-- (recomputeProgress) keeps it from now on. Rows without a completion stay NULL.
UPDATE `enrollments` SET `last_completion_at` = (SELECT MAX(bc.`completed_at`) FROM `block_completions` bc
    WHERE bc.`tenant_id` = `enrollments`.`tenant_id` AND bc.`student_id` = `enrollments`.`student_id` AND bc.`course_id` = `enrollments`.`course_id`)
  WHERE EXISTS (SELECT 1 FROM `block_completions` bc
    WHERE bc.`tenant_id` = `enrollments`.`tenant_id` AND bc.`student_id` = `enrollments`.`student_id` AND bc.`course_id` = `enrollments`.`course_id`);
