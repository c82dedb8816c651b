import { contentContributor, LESSON_COMPLETION, type SettledScore } from "../common/events";
import { completionAwards, RATING_RULE_EVENTS, scoredAward, type ScoredAward } from "./award";

function award(sourceType: ScoredAward["sourceType"], score: SettledScore): ScoredAward {
  return {
    sourceType,
    targetId: score.objectId,
    studentId: score.studentId,
    sourceKey: score.key,
    scorePct: score.pct,
    passed: score.passed,
    passingScore: score.passingScore,
    when: score.final,
  };
}

/**
 * A settled attempt (quiz, exam) or an accepted submission earns its points (`scoredAward`: the
 * point event, #60, #63). Registered first: its statements follow the source's own (the scores
 * they read) and precede the completions, as the sources wrote them before (docs/domain-events.md,
 * "Contributors and their order").
 */
export const scoredAwardsContributor = contentContributor({
  name: "rating.scored-awards",
  handles: ["attempt.settled", "submission.accepted"],
  pushEvents: RATING_RULE_EVENTS,
  statements: async (ctx, event) => scoredAward(ctx, award(event.type === "attempt.settled" ? event.attempt : "assignment", event.score)),
});

/**
 * The lessons, modules and courses a `block.completed` batch completes earn their points
 * (`completionAwards`). Registered after `courses.completion-pushes`, so its statements follow the
 * source's recount (a course's award needs the enrollment the recount completed).
 */
export const completionAwardsContributor = contentContributor({
  name: "rating.completion-awards",
  handles: ["block.completed"],
  pushEvents: RATING_RULE_EVENTS,
  secondBatch: LESSON_COMPLETION,
  statements: async (ctx, event) => (event.lessons === "none" ? [] : completionAwards(ctx, { studentId: event.studentId, now: event.now })),
});

/** The rating area's contributors, each list registered at its own place by app assembly (src/contributors.ts). */
export const RATING_SCORE_CONTRIBUTORS = [scoredAwardsContributor];
export const RATING_COMPLETION_CONTRIBUTORS = [completionAwardsContributor];
