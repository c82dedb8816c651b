import { contributorRegistry, type ContributorRegistry } from "./core/events";
import { COURSES_COMPLETION_CONTRIBUTORS, COURSES_PUSH_CONTRIBUTORS } from "./content/courses/completion-contributors";
import { PATHS_CONTRIBUTORS } from "./content/paths/contributors";
import { RATING_CONTRIBUTORS } from "./content/rating/contributors";
import { QUIZ_FIGURES_CONTRIBUTOR } from "./content/quizzes/figures";
import { EXAM_FIGURES_CONTRIBUTOR } from "./content/exams/figures";

/**
 * The domain events' contributors (docs/domain-events.md), built once at app assembly and carried
 * by every context: the routes (src/app.ts), the cron jobs (src/scheduled.ts), the Durable Objects'
 * alarms and the queue consumers. Areas never import this file. Registration order is the order of
 * the statements in the batch: the completion (and recount) first, then the pushes that read the
 * enrollment it completed (the path pushes before the course's, which they may replace), then the
 * awards that read it too.
 */
export const CONTRIBUTORS: ContributorRegistry = contributorRegistry([
  ...COURSES_COMPLETION_CONTRIBUTORS,
  ...PATHS_CONTRIBUTORS,
  ...COURSES_PUSH_CONTRIBUTORS,
  ...RATING_CONTRIBUTORS,
  // The analytics figures (attempt.recorded) read only attempts, never what the others write.
  QUIZ_FIGURES_CONTRIBUTOR,
  EXAM_FIGURES_CONTRIBUTOR,
]) as unknown as ContributorRegistry;
