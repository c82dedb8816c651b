import { z } from "@hono/zod-openapi";
import { gates } from "../../core/http/gates";
import { readDevMailbox } from "../email/dev-mailbox";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { ApiError, coreErrors } from "../../core/http/errors";
import { defineRoute } from "../../core/http/route";

/** Local-development helpers (the dev mailbox); they exist only when DEV_MAILBOX=true. */
export const devRoutes = createArea();

// Ahead of the route's validators: with the mailbox off, even a malformed call is an unknown route.
devRoutes.use("/dev/*", async (c, next) => {
  if (!c.get("services").config.devMailbox) {
    throw new ApiError(coreErrors.ROUTE_NOT_FOUND, { message: `No route ${c.req.method} ${c.req.path}.` });
  }
  await next();
});

const DevEmail = z
  .object({
    id: z.string(),
    to: z.string(),
    kind: z.enum(["verification", "password_reset", "welcome"]),
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
