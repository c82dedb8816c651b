/** The rows of a SELECT that ran inside a batch (`runBatch` hands back raw D1 results). */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { results?: T[] }).results ?? []) as T[];
}
