import type { MiddlewareHandler } from "hono";
import { controlDb } from "../db/client";
import { getConfig, type Env } from "../env";
import type { ContributorRegistry } from "../events";
import { currentClock } from "../lib/clock";
import { uuidv7 } from "../lib/ids";
import type { AppEnv, ServiceContext } from "./context";
import { publicOrigin } from "./public-links";

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{8,128}$/;

/** Request id (echoed as X-Request-Id) and the service context every handler passes to services, with the app's contributors. */
export function requestContext(contributors: ContributorRegistry): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID_PATTERN.test(incoming) ? incoming : uuidv7();
    c.set("requestId", requestId);
    c.set("services", serviceContext(c.env, contributors, requestId, c.req.url));
    c.header("X-Request-Id", requestId);
    await next();
  };
}

/**
 * `contributors` is the app's registry (src/contributors.ts) and required: a context without it
 * would let a source reached from a job (a queue consumer, a Durable Object's alarm, a cron run)
 * silently skip every contributor and write less than the same change made through a route
 * (docs/domain-events.md, "The registry travels in the context"). `requestUrl` is the request's,
 * for the links it returns; jobs have none.
 */
export function serviceContext(env: Env, contributors: ContributorRegistry, requestId: string = uuidv7(), requestUrl?: string): ServiceContext {
  if (!contributors) throw new Error("serviceContext needs the contributors' registry (src/contributors.ts)");
  const config = getConfig(env);
  return { db: controlDb(env), env, config, clock: currentClock(), requestId, publicOrigin: publicOrigin(config, requestUrl), contributors };
}
