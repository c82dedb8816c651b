/** Types of webhooks-sql.mjs, for the test that runs its SQL. */
export const WEBHOOKS_BENCH: { name: string; events: number; timeoutMs: number };

export function webhooksBenchSql(options: { tenantId: string; webhookId: string; now: number; events?: number }): string;
