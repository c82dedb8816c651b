import { statementMs } from "./batch";

/**
 * Statement timing for the bench (docs/decisions/heavy-reads-bench.md, "The bench's statement timing"):
 * a D1 binding or session wrapped for one request records how many statements it ran and the
 * slowest one. Made per request (no module-level state) and only when `D1_TIMING=true`.
 *
 * D1 reports `meta.duration` (ms inside the database) for `all`, `run` and every statement of a
 * `batch`; `raw` and `first` drop the meta, so for those (drizzle's select builder reads with
 * `raw`) the wall time of the call stands in: an upper bound, since it adds the trip to D1.
 */
export interface StatementTiming {
  count: number;
  slowestMs: number;
}

/** `Server-Timing` value: the slowest statement's ms and, as the description, the statement count. */
export function serverTimingValue(timing: StatementTiming): string {
  return `d1;dur=${timing.slowestMs.toFixed(2)};desc="${timing.count}"`;
}

type Statement = D1PreparedStatement;

/** The D1 object behind a wrapped statement, for `batch` (D1 reads its own fields of each statement). */
const unwrapped = new WeakMap<object, Statement>();

function record(timing: StatementTiming, ms: number): void {
  timing.count++;
  if (ms > timing.slowestMs) timing.slowestMs = ms;
}

function wrapStatement(statement: Statement, timing: StatementTiming): Statement {
  // `raw` and `first` results carry no meta: their wall time stands in (statementMs gives null).
  const timed = async <R>(work: Promise<R>): Promise<R> => {
    const started = performance.now();
    const result = await work;
    record(timing, statementMs(result) ?? performance.now() - started);
    return result;
  };
  const wrapped = {
    bind: (...values: unknown[]) => wrapStatement(statement.bind(...values), timing),
    all: () => timed(statement.all()),
    run: () => timed(statement.run()),
    first: (column?: string) => timed(column === undefined ? statement.first() : statement.first(column)),
    raw: (options?: { columnNames?: boolean }) => timed(statement.raw(options as { columnNames: true })),
  } as unknown as Statement;
  unwrapped.set(wrapped, statement);
  return wrapped;
}

/** `binding` (a D1 database or session) with every statement it runs counted into `timing`. */
export function timedD1<T extends D1Database | D1DatabaseSession>(binding: T, timing: StatementTiming): T {
  const wrapped = {
    prepare: (query: string) => wrapStatement(binding.prepare(query), timing),
    batch: async (statements: Statement[]) => {
      const started = performance.now();
      const results = await binding.batch(statements.map((statement) => unwrapped.get(statement) ?? statement));
      const elapsed = performance.now() - started;
      for (const result of results) record(timing, statementMs(result) ?? elapsed);
      return results;
    },
    getBookmark: () => ("getBookmark" in binding ? binding.getBookmark() : null),
  };
  if ("exec" in binding) Object.assign(wrapped, { exec: (query: string) => binding.exec(query), withSession: binding.withSession.bind(binding), dump: binding.dump.bind(binding) });
  return wrapped as unknown as T;
}
