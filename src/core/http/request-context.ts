import { drizzle } from "drizzle-orm/d1";
import type { Context, MiddlewareHandler } from "hono";
import * as schema from "../../db/schema";
import { emailLocale } from "../../platform/email/outbox";
import { getConfig, type Env, type Locale } from "../env";
import { currentClock } from "../lib/clock";
import { uuidv7 } from "../lib/ids";
import type { AppEnv, Db, ServiceContext } from "./context";

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

const databases = new WeakMap<D1Database, Db>();

/** One drizzle instance per D1 binding (per isolate), not per request. */
function database(binding: D1Database): Db {
  let db = databases.get(binding);
  if (!db) {
    db = drizzle(binding, { schema });
    databases.set(binding, db);
  }
  return db;
}

export function serviceContext(env: Env, requestId: string = uuidv7()): ServiceContext {
  return { db: database(env.DB), env, config: getConfig(env), clock: currentClock(), requestId };
}

/** The language of emails this request causes: its Accept-Language, else the configured default. */
export function requestLocale(c: Context<AppEnv>): Locale {
  return emailLocale(c.req.header("accept-language"), c.get("services").config.defaultEmailLocale);
}
