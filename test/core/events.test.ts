import { sql } from "drizzle-orm";
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { drizzle } from "drizzle-orm/d1";
import type { BatchItem } from "../../src/core/db/batch";
import {
  contributedStatements,
  contributorRegistry,
  needsSecondBatch,
  prepareEvent,
  pushEventsOf,
  reachableTypes,
  requireRegistry,
  type Contributor,
} from "../../src/core/events";
import { CONTRIBUTORS } from "../../src/contributors";

/**
 * The machinery of src/core/events.ts with contributors that write marker statements: the order
 * of the statements is the registration order, cascades run depth first right after the emitting
 * contributor, prepared reads reach their contributor, and pushes and second batches are declared.
 */

type Event = { type: "a"; n: number } | { type: "b"; n: number } | { type: "c"; n: number };

const db = drizzle(env.DB);
/** A statement that stands for its label (the tests compare labels, not SQL). */
const labelled = new WeakMap<object, string>();
function marker(label: string): BatchItem {
  const item = db.run(sql`SELECT ${label}`) as unknown as BatchItem;
  labelled.set(item as object, label);
  return item;
}
const labels = (items: readonly BatchItem[]) => items.map((item) => labelled.get(item as object));

function writes(name: string, handles: Event["type"][], extra: Partial<Contributor<null, Event, string>> = {}): Contributor<null, Event, string> {
  return { name, handles, statements: async (_ctx, event) => [marker(`${name}:${event.type}${event.n}`)], ...extra };
}

describe("domain events machinery", () => {
  it("runs the contributors of an event in registration order, each cascade depth first after its emitter", async () => {
    const registry = contributorRegistry<null, Event, string>([
      writes("first", ["a"]),
      writes("emitter", ["a"], {
        emits: ["b"],
        statements: async (_ctx, event, _prepared, emit) => {
          emit({ type: "b", n: event.n + 1 });
          emit({ type: "b", n: event.n + 2 });
          return [marker(`emitter:a${event.n}`)];
        },
      }),
      writes("on-b", ["b"], {
        emits: ["c"],
        statements: async (_ctx, event, _prepared, emit) => {
          emit({ type: "c", n: event.n });
          return [marker(`on-b:b${event.n}`)];
        },
      }),
      writes("on-c", ["c"]),
      writes("last", ["a", "c"]),
    ]);
    const statements = await contributedStatements(registry, null, { type: "a", n: 0 });
    expect(labels(statements)).toEqual([
      "first:a0",
      "emitter:a0",
      "on-b:b1",
      "on-c:c1",
      "last:c1",
      "on-b:b2",
      "on-c:c2",
      "last:c2",
      "last:a0",
    ]);
    expect(labels(await contributedStatements(registry, null, { type: "c", n: 7 }))).toEqual(["on-c:c7", "last:c7"]);
  });

  it("hands each contributor the results of its own reads", async () => {
    const registry = contributorRegistry<null, Event, string>([
      writes("no-reads", ["a"]),
      writes("two-reads", ["a"], {
        prepare: () => ({ statements: [marker("r1"), marker("r2")], read: (results) => results.join("+") }),
        statements: async (_ctx, _event, prepared) => [marker(`two-reads got ${String(prepared)}`)],
      }),
      writes("one-read", ["a"], {
        prepare: () => ({ statements: [marker("r3")], read: (results) => results.join("+") }),
        statements: async (_ctx, _event, prepared) => [marker(`one-read got ${String(prepared)}`)],
      }),
    ]);
    const prep = prepareEvent(registry, null, { type: "a", n: 0 });
    expect(labels(prep.statements)).toEqual(["r1", "r2", "r3"]);
    const prepared = prep.read(["x", "y", "z"]);
    expect(labels(await contributedStatements(registry, null, { type: "a", n: 0 }, prepared))).toEqual(["no-reads:a0", "two-reads got x+y", "one-read got z"]);
  });

  it("collects the pushes of an event and its cascades once each, and the second batches they need", () => {
    const registry = contributorRegistry<null, Event, string>([
      writes("p1", ["a"], { emits: ["b"], pushEvents: ["x", "y"] }),
      writes("p2", ["b"], { pushEvents: ["y", "z"], secondBatch: "lesson" }),
      writes("p3", ["c"], { pushEvents: ["w"] }),
    ]);
    expect(reachableTypes(registry, ["a"])).toEqual(["a", "b"]);
    expect(pushEventsOf(registry, ["a"])).toEqual(["x", "y", "z"]);
    expect(pushEventsOf(registry, ["b"])).toEqual(["y", "z"]);
    expect(pushEventsOf(registry, ["c"])).toEqual(["w"]);
    expect(needsSecondBatch(registry, "a", "lesson")).toBe(true);
    expect(needsSecondBatch(registry, "c", "lesson")).toBe(false);
    expect(needsSecondBatch(registry, "a", "other")).toBe(false);
  });

  it("requireRegistry hands back the context's registry and throws for a context that carries none", () => {
    const registry = contributorRegistry<null, Event, string>([writes("one", ["a"])]);
    expect(requireRegistry({ contributors: registry })).toBe(registry);
    for (const contributors of [undefined, null, {}, { contributors: "x" }]) {
      expect(() => requireRegistry({ contributors })).toThrow("domain event emitted through a context without the contributors' registry");
    }
  });

  it("an event a contributor emits is handled by its own contributors, and an event no contributor handles adds nothing", async () => {
    const registry = contributorRegistry<null, Event, string>([
      writes("a-to-c", ["a"], {
        emits: ["c"],
        statements: async (_ctx, event, _prepared, emit) => {
          emit({ type: "c", n: event.n * 10 });
          return [];
        },
      }),
      writes("on-c", ["c"]),
    ]);
    expect(labels(await contributedStatements(registry, null, { type: "a", n: 3 }))).toEqual(["on-c:c30"]);
    expect(await contributedStatements(registry, null, { type: "b", n: 1 })).toEqual([]);
  });

  it("refuses a contributor registered twice and freezes the registry", () => {
    expect(() => contributorRegistry<null, Event, string>([writes("same", ["a"]), writes("same", ["b"])])).toThrow("contributor same is registered twice");
    const registry = contributorRegistry<null, Event, string>([writes("one", ["a"])]);
    expect(Object.isFrozen(registry)).toBe(true);
    expect(Object.isFrozen(registry.contributors)).toBe(true);
  });

  it("the app registers the scored points, the completion, then the pushes that read it (the paths' before the course's they replace), then the awards, then the access pushes, then the analytics figures, then the webhook events", () => {
    expect(CONTRIBUTORS.contributors.map((contributor) => [contributor.name, contributor.handles, contributor.emits ?? [], contributor.secondBatch ?? null])).toEqual([
      ["rating.scored-awards", ["attempt.settled", "submission.accepted"], [], null],
      ["courses.reference-completion", ["attempt.settled", "submission.submitted"], ["block.completed"], null],
      ["courses.course-completion", ["block.completed"], ["course.completed"], "lesson-completion"],
      ["paths.path-progress", ["course.completed"], ["path.course_unlocked", "path.completed"], null],
      ["paths.unlock-pushes", ["path.course_unlocked"], [], null],
      ["paths.completion-pushes", ["path.completed"], [], null],
      ["courses.completion-pushes", ["course.completed"], [], null],
      ["certificates.issuance", ["course.completed"], [], null],
      ["certificates.exam-issuance", ["attempt.settled"], [], null],
      ["rating.completion-awards", ["block.completed"], [], "lesson-completion"],
      ["enrollments.access-pushes", ["enrollment.created", "enrollment.removed"], [], null],
      ["quizzes.analytics-figures", ["attempt.recorded"], [], null],
      ["exams.analytics-figures", ["attempt.recorded"], [], null],
      ["analytics.activity-days", ["block.completed", "attempt.recorded", "submission.submitted", "submission.reopened"], [], null],
      ["webhook-events.attempts", ["attempt.settled"], [], null],
      ["webhook-events.submissions", ["submission.submitted", "submission.accepted", "submission.rejected"], [], null],
      ["webhook-events.enrollments", ["enrollment.created", "enrollment.removed"], [], null],
      ["webhook-events.course-completed", ["course.completed"], [], null],
    ]);
  });

  it("a completing source reaches course.completed and prefetches the path, course and rating pushes, each once", () => {
    const codes = (roots: string[]) => pushEventsOf(CONTRIBUTORS, roots).map((push) => (push as { code: string }).code);
    expect(reachableTypes(CONTRIBUTORS, ["attempt.settled"])).toEqual(["attempt.settled", "block.completed", "course.completed", "path.course_unlocked", "path.completed"]);
    const completion = ["path.course_unlocked", "path.completed", "path.student_completed", "course.completed", "course.student_completed", "rating.points_awarded", "rating.top_entered"];
    // A settled attempt's own points come first (rating.scored-awards): the same set, rating's settings read first.
    expect(codes(["attempt.settled"])).toEqual(["rating.points_awarded", "rating.top_entered", ...completion.slice(0, 5)]);
    expect(codes(["submission.submitted"])).toEqual(completion);
    expect(codes(["block.completed"])).toEqual(completion);
    expect(codes(["submission.accepted"])).toEqual(["rating.points_awarded", "rating.top_entered"]);
    expect(codes(["submission.rejected"])).toEqual([]);
    expect(codes(["enrollment.created"])).toEqual(["course.enrolled", "course.unenrolled"]);
    expect(needsSecondBatch(CONTRIBUTORS, "block.completed", "lesson-completion")).toBe(true);
  });
});
