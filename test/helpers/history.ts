import { fixtureD1 } from "./databases";

/** One security-history row with every column a test compares (the user agent and time left out). */
export interface HistoryEvent {
  type: string;
  auth_device_id: string | null;
  session_id: string | null;
  actor_user_id: string | null;
  ip: string | null;
  detail: Record<string, unknown> | null;
}

/**
 * A user's security history straight from D1, oldest first. Events written by one statement share
 * their instant, so callers comparing several of them sort by device (`byDevice`).
 */
export async function historyOf(userId: string, type?: string): Promise<HistoryEvent[]> {
  const { results } = await fixtureD1.prepare(
    `SELECT type, auth_device_id, session_id, actor_user_id, ip, detail FROM device_events
     WHERE user_id = ?1 AND (?2 IS NULL OR type = ?2) ORDER BY created_at, id`,
  )
    .bind(userId, type ?? null)
    .all<Omit<HistoryEvent, "detail"> & { detail: string | null }>();
  return results.map((row) => ({ ...row, detail: row.detail ? JSON.parse(row.detail) : null }));
}

/** Orders events by device id, so a set written in one statement compares as a list. */
export function byDevice<T extends { auth_device_id: string | null }>(events: T[]): T[] {
  return [...events].sort((a, b) => (a.auth_device_id ?? "").localeCompare(b.auth_device_id ?? ""));
}
