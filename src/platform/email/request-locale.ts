import type { Context } from "hono";
import type { AppEnv } from "../../core/http/context";
import type { Locale } from "../../core/env";
import { emailLocale } from "./outbox";

/** The language of emails this request causes: its Accept-Language, else the configured default. */
export function requestLocale(c: Context<AppEnv>): Locale {
  return emailLocale(c.req.header("accept-language"), c.get("services").config.defaultEmailLocale);
}
