import type { Env, OutboxMessage } from "../src/env";

/** Delivers outbox emails. Filled in by the outbox work: providers, leases, idempotency, retries. */
export async function handleOutboxBatch(batch: MessageBatch<OutboxMessage>, _env: Env): Promise<void> {
  batch.ackAll();
}
