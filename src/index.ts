import { app } from "./app";
import type { Env, OutboxMessage } from "./core/env";
import { runScheduled } from "./scheduled";
import { handleOutboxBatch } from "../queues/outbox-consumer";

export { SessionFamily } from "../durable-objects/session-family";

export default {
  fetch: app.fetch,
  queue: (batch, env) => handleOutboxBatch(batch, env),
  scheduled: (controller, env, ctx) => {
    ctx.waitUntil(runScheduled(controller, env));
  },
} satisfies ExportedHandler<Env, OutboxMessage>;
