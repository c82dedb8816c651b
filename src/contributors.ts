import { contributorRegistry, type ContributorRegistry } from "./core/events";
import { COURSES_CONTRIBUTORS } from "./content/courses/completion-contributors";
import { RATING_CONTRIBUTORS } from "./content/rating/contributors";

/**
 * The domain events' contributors (docs/domain-events.md), built once at app assembly and carried
 * by every context: the routes (src/app.ts), the cron jobs (src/scheduled.ts), the Durable Objects'
 * alarms and the queue consumers. Areas never import this file. Registration order is the order of
 * the statements in the batch: the completion (and recount) first, then the pushes that read the
 * enrollment it completed, then the awards that read it too.
 */
export const CONTRIBUTORS: ContributorRegistry = contributorRegistry([...COURSES_CONTRIBUTORS, ...RATING_CONTRIBUTORS]) as unknown as ContributorRegistry;
