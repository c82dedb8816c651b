import type { MiddlewareHandler } from "hono";
import { controlDb } from "../db/client";
import { getConfig, type Env } from "../env";
import { NO_CONTRIBUTORS, type ContributorRegistry } from "../events";
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
    c.set("services", serviceContext(c.env, requestId, c.req.url, contributors));
    c.header("X-Request-Id", requestId);
    await next();
  };
}

/**
 * `requestUrl` is the request's, for the links it returns; jobs have none. A job whose verbs emit
 * domain events passes the app's registry (src/contributors.ts); without one a source writes only
 * its own statements.
 */
export function serviceContext(env: Env, requestId: string = uuidv7(), requestUrl?: string, contributors: ContributorRegistry = NO_CONTRIBUTORS): ServiceContext {
  const config = getConfig(env);
  return { db: controlDb(env), env, config, clock: currentClock(), requestId, publicOrigin: publicOrigin(config, requestUrl), contributors };
}
