import type { MiddlewareHandler } from "hono";
import { platformDb } from "../db/client";
import { getConfig, type Env } from "../env";
import { currentClock } from "../lib/clock";
import { uuidv7 } from "../lib/ids";
import type { AppEnv, ServiceContext } from "./context";

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{8,128}$/;

/** Request id (echoed as X-Request-Id) and the service context every handler passes to services. */
export function requestContext(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID_PATTERN.test(incoming) ? incoming : uuidv7();
    c.set("requestId", requestId);
    c.set("services", serviceContext(c.env, requestId));
    c.header("X-Request-Id", requestId);
    await next();
  };
}

export function serviceContext(env: Env, requestId: string = uuidv7()): ServiceContext {
  return { db: platformDb(env), env, config: getConfig(env), clock: currentClock(), requestId };
}
