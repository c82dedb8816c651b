import { z } from "@hono/zod-openapi";
import { gates } from "../../core/http/gates";
import type { MiddlewareHandler } from "hono";
import type { Config } from "../../core/env";
import type { AppEnv } from "../../core/http/context";
import { uuidField } from "../../core/http/fields";
import { readDevMailbox } from "../email/dev-mailbox";
import { readDevPushbox } from "../notifications/dev-pushbox";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { ApiError, coreErrors } from "../../core/http/errors";
import { defineRoute } from "../../core/http/route";

/**
 * Local-development helpers: the dev mailbox (only with DEV_MAILBOX=true) and the dev pushbox
 * (only with DEV_PUSHBOX=true).
 */
export const devRoutes = createArea();

// Ahead of the route's validators: with its switch off, even a malformed call is an unknown route.
function onlyWhen(enabled: (config: Config) => boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!enabled(c.get("services").config)) {
      throw new ApiError(coreErrors.ROUTE_NOT_FOUND, { message: `No route ${c.req.method} ${c.req.path}.` });
    }
    await next();
  };
}
devRoutes.use("/dev/mailbox", onlyWhen((config) => config.devMailbox));
devRoutes.use("/dev/pushes", onlyWhen((config) => config.devPushbox));

const DevEmail = z
  .object({
    id: z.string(),
    to: z.string(),
    kind: z.enum(["verification", "password_reset", "welcome", "account_invite"]),
    subject: z.string(),
    text: z.string().nullable(),
    meta: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.string(),
  })
  .openapi("DevMailboxMessage");

const mailboxRoute = defineRoute({
  method: "get",
  path: "/dev/mailbox",
  gate: gates.public,
  tags: ["Development"],
  summary: "Emails queued to an address, newest first (only with DEV_MAILBOX=true, never in production)",
  request: {
    query: z.object({
      to: z
        .string()
        .trim()
        .min(1)
        .max(254)
        .transform((value) => value.toLowerCase())
        .openapi({ example: "admin@demo.school" }),
    }),
  },
  failures: [coreErrors.ROUTE_NOT_FOUND],
  responses: { 200: okResponse(z.object({ messages: z.array(DevEmail) })) },
});

devRoutes.openapi(mailboxRoute, async (c) => ok(c, await readDevMailbox(c.get("services"), c.req.valid("query"))));

const DevPush = z
  .object({
    id: z.string(),
    notification_id: z.string(),
    user_id: z.string(),
    installation_id: z.string(),
    device: z.object({ id: z.string(), installation_id: z.string(), platform: z.enum(["web", "ios", "android"]) }),
    event_code: z.string(),
    title: z.string(),
    body: z.string(),
    deep_link: z.string().nullable(),
    data: z.record(z.string(), z.unknown()),
    delivered_at: z.string(),
  })
  .openapi("DevPush");

const pushesRoute = defineRoute({
  method: "get",
  path: "/dev/pushes",
  gate: gates.public,
  tags: ["Development"],
  summary: "Pushes the log provider delivered to a user's devices, newest first (only with DEV_PUSHBOX=true, never in production)",
  request: { query: z.object({ user_id: uuidField }) },
  failures: [coreErrors.ROUTE_NOT_FOUND],
  responses: { 200: okResponse(z.object({ pushes: z.array(DevPush) })) },
});

devRoutes.openapi(pushesRoute, async (c) => ok(c, await readDevPushbox(c.get("services"), { userId: c.req.valid("query").user_id })));
