import type { BatchItem } from "./db/batch";

/**
 * Domain events with statement contributors (docs/domain-events.md). A source (a settle, a submit,
 * a completion) builds its own statements and an event saying what it did; every contributor
 * registered for the event's type adds its statements to the SAME write batch, so a source change
 * that is refused or repeated writes nothing anywhere. The registry is an immutable value built
 * once at app assembly (src/contributors.ts) and carried by the context (`ServiceContext.contributors`).
 *
 * Order is deterministic: the contributors of an event run in registration order, and an event a
 * contributor emits is handled in full (depth first) right after that contributor's statements,
 * before the next contributor of the parent event (docs/domain-events.md, "Order").
 */

export interface DomainEvent {
  readonly type: string;
}

/** Reads for the source's READ batch and what the contributor makes of their results. */
export interface Preparation<T> {
  statements: BatchItem[];
  read(results: readonly unknown[]): T;
}

export interface Contributor<C, E extends DomainEvent, P = unknown> {
  /** Unique in a registry; the key of the contributor's prepared reads. */
  readonly name: string;
  /** The event types it adds statements to. */
  readonly handles: readonly E["type"][];
  /** The event types it may emit (a cascade), so a source prefetches what their contributors need. */
  readonly emits?: readonly E["type"][];
  /** The pushes it may enqueue: a source prefetches their settings in its read batch (no round trip of its own). */
  readonly pushEvents?: readonly P[];
  /**
   * Set when the contributor cannot write into the source's first batch in some case and the source
   * must refuse that case there and retry it in a second batch carrying the contributor's
   * statements; the value says which case (docs/domain-events.md, "Second batch").
   */
  readonly secondBatch?: string;
  /** Reads for the source's read batch (only for the event the source emits itself, not for cascades). */
  prepare?(ctx: C, event: E): Preparation<unknown>;
  /** Statements for the source's write batch, in order; `emit` hands a follow-on event to the registry. */
  statements(ctx: C, event: E, prepared: unknown, emit: (event: E) => void): Promise<BatchItem[]>;
}

export interface ContributorRegistry<C = never, E extends DomainEvent = DomainEvent, P = unknown> {
  readonly contributors: readonly Contributor<C, E, P>[];
}

/** The prepared reads of one event, by contributor name. */
export type PreparedEvent = ReadonlyMap<string, unknown>;

/** A registry of the contributors, in the order given; names must be unique. */
export function contributorRegistry<C, E extends DomainEvent, P>(contributors: readonly Contributor<C, E, P>[]): ContributorRegistry<C, E, P> {
  const names = new Set<string>();
  for (const contributor of contributors) {
    if (names.has(contributor.name)) throw new Error(`contributor ${contributor.name} is registered twice`);
    names.add(contributor.name);
  }
  return Object.freeze({ contributors: Object.freeze([...contributors]) });
}

/**
 * The registry a context carries, or a throw when it carries none: a source reached through a
 * context built without the app's registry must fail, not write only its own statements
 * (docs/domain-events.md, "The registry travels in the context").
 */
export function requireRegistry<R extends ContributorRegistry<never, DomainEvent, unknown>>(ctx: { readonly contributors?: unknown }): R {
  const registry = ctx.contributors as { contributors?: unknown } | undefined;
  if (!registry || !Array.isArray(registry.contributors)) {
    throw new Error("domain event emitted through a context without the contributors' registry (src/contributors.ts): its contributors would be skipped");
  }
  return registry as R;
}

export function contributorsOf<C, E extends DomainEvent, P>(registry: ContributorRegistry<C, E, P>, type: E["type"]): Contributor<C, E, P>[] {
  return registry.contributors.filter((contributor) => contributor.handles.includes(type));
}

/** The event types an event of `roots` may lead to (itself and every cascade), in discovery order. */
export function reachableTypes<C, E extends DomainEvent, P>(registry: ContributorRegistry<C, E, P>, roots: readonly E["type"][]): E["type"][] {
  const found: E["type"][] = [...new Set(roots)];
  for (let i = 0; i < found.length; i++) {
    for (const contributor of contributorsOf(registry, found[i]!)) {
      for (const next of contributor.emits ?? []) if (!found.includes(next)) found.push(next);
    }
  }
  return found;
}

/** The pushes the contributors of `roots` and their cascades may enqueue, each once, in registration order. */
export function pushEventsOf<C, E extends DomainEvent, P>(registry: ContributorRegistry<C, E, P>, roots: readonly E["type"][]): P[] {
  const types = reachableTypes(registry, roots);
  const out: P[] = [];
  for (const contributor of registry.contributors) {
    if (!contributor.handles.some((type) => types.includes(type))) continue;
    for (const push of contributor.pushEvents ?? []) if (!out.includes(push)) out.push(push);
  }
  return out;
}

/** Whether a contributor of the event type (or of its cascades) needs a second batch in the case `reason`. */
export function needsSecondBatch<C, E extends DomainEvent, P>(registry: ContributorRegistry<C, E, P>, type: E["type"], reason: string): boolean {
  const types = reachableTypes(registry, [type]);
  return registry.contributors.some((contributor) => contributor.secondBatch === reason && contributor.handles.some((handled) => types.includes(handled)));
}

/** The reads the contributors of the event want in the source's read batch, in registration order. */
export function prepareEvent<C, E extends DomainEvent, P>(registry: ContributorRegistry<C, E, P>, ctx: C, event: E): Preparation<PreparedEvent> {
  const parts = contributorsOf(registry, event.type).flatMap((contributor) => (contributor.prepare ? [{ name: contributor.name, prep: contributor.prepare(ctx, event) }] : []));
  return {
    statements: parts.flatMap((part) => part.prep.statements),
    read(results) {
      const prepared = new Map<string, unknown>();
      let offset = 0;
      for (const part of parts) {
        prepared.set(part.name, part.prep.read(results.slice(offset, offset + part.prep.statements.length)));
        offset += part.prep.statements.length;
      }
      return prepared;
    },
  };
}

/** The contributors' statements for the event and its cascades, in order (see the top of this file). */
export async function contributedStatements<C, E extends DomainEvent, P>(
  registry: ContributorRegistry<C, E, P>,
  ctx: C,
  event: E,
  prepared: PreparedEvent = new Map(),
): Promise<BatchItem[]> {
  const out: BatchItem[] = [];
  for (const contributor of contributorsOf(registry, event.type)) {
    const emitted: E[] = [];
    out.push(...(await contributor.statements(ctx, event, prepared.get(contributor.name), (next) => emitted.push(next))));
    // A cascade's contributors prepare nothing: what they need travels in the event.
    for (const next of emitted) out.push(...(await contributedStatements(registry, ctx, next)));
  }
  return out;
}
