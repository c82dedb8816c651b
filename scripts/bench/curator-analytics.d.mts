/** Types of curator-analytics.mjs, for the tests that seed a school with it. */
export function curatorAnalyticsSeedSql(options?: { tenantId?: string; idBase?: string; now?: number; curators?: number; students?: number }): string;

export const CURATOR_ANALYTICS_ENDPOINT: {
  name: string;
  method: string;
  path: string;
  headers: (sessions: { admin: { token: string } }) => Record<string, string>;
};
