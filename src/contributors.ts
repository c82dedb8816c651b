import { contributorRegistry, type ContributorRegistry } from "./core/events";
import type { Env } from "./core/env";
import type { ServiceContext } from "./core/http/context";
import { serviceContext } from "./core/http/request-context";
import { COURSES_COMPLETION_CONTRIBUTORS, COURSES_PUSH_CONTRIBUTORS } from "./content/courses/completion-contributors";
import { ENROLLMENTS_CONTRIBUTORS } from "./content/enrollments/contributors";
import { PATHS_CONTRIBUTORS } from "./content/paths/contributors";
import { RATING_COMPLETION_CONTRIBUTORS, RATING_SCORE_CONTRIBUTORS } from "./content/rating/contributors";
import { QUIZ_FIGURES_CONTRIBUTOR } from "./content/quizzes/figures";
import { EXAM_FIGURES_CONTRIBUTOR } from "./content/exams/figures";
import { ACTIVITY_DAYS_CONTRIBUTOR } from "./content/analytics/activity-days";
import { CERTIFICATES_CONTRIBUTORS } from "./content/certificates/issuance";
import { WEBHOOK_EVENT_CONTRIBUTORS } from "./content/webhook-events/contributors";

/**
 * The domain events' contributors (docs/domain-events.md), built once at app assembly and carried
 * by every context: the routes (src/app.ts), the cron jobs (src/scheduled.ts), the Durable Objects'
 * alarms and the queue consumers. Areas never import this file. Registration order is the order of
 * the statements in the batch: a scored source's points first (they read the source's scores),
 * then the completion (and recount), then the pushes that read the
 * enrollment it completed (the path pushes before the course's, which they may replace), then the
 * awards that read it too. The access pushes handle events no other contributor does.
 */
export const CONTRIBUTORS: ContributorRegistry = contributorRegistry([
  ...RATING_SCORE_CONTRIBUTORS,
  ...COURSES_COMPLETION_CONTRIBUTORS,
  ...PATHS_CONTRIBUTORS,
  ...COURSES_PUSH_CONTRIBUTORS,
  // Certificates read the enrollment the recount completed, as the course pushes do.
  ...CERTIFICATES_CONTRIBUTORS,
  ...RATING_COMPLETION_CONTRIBUTORS,
  ...ENROLLMENTS_CONTRIBUTORS,
  // The analytics figures (attempt.recorded) read only attempts, never what the others write.
  QUIZ_FIGURES_CONTRIBUTOR,
  EXAM_FIGURES_CONTRIBUTOR,
  // The daily activity reads only the activity rows, which the sources and the completion wrote before.
  ACTIVITY_DAYS_CONTRIBUTOR,
  // Last: the webhook events' data shows what every other contributor wrote.
  ...WEBHOOK_EVENT_CONTRIBUTORS,
]) as unknown as ContributorRegistry;

/**
 * The context of a job (a queue consumer, a Durable Object's alarm, a cron run): the platform
 * context with the app's registry, so a source a job reaches writes what a route's would.
 */
export function jobContext(env: Env, requestId?: string): ServiceContext {
  return serviceContext(env, CONTRIBUTORS, requestId);
}
