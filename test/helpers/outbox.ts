import { fixtureD1 } from "./databases";

export interface OutboxRow {
  id: string;
  kind: string;
  subject: string;
  text_body: string | null;
  meta: string | null;
  locale: string;
  tenant_id: string | null;
}

/** Emails recorded for an address, newest first (read straight from the outbox table). */
export async function emailsTo(address: string): Promise<(OutboxRow & { metaJson: Record<string, unknown> })[]> {
  const { results } = await fixtureD1.prepare("SELECT * FROM email_outbox WHERE to_email = ? ORDER BY created_at DESC, id DESC").bind(address).all<OutboxRow>();
  return results.map((row) => ({ ...row, metaJson: row.meta ? JSON.parse(row.meta) : {} }));
}
