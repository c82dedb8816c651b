import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../src/core/http/context";
import { schoolD1 } from "./databases";
import { readResponse, type ApiResponse } from "./http";
import type { Member } from "./users";
import { envWith, wrapD1 } from "./wrapped-d1";

/**
 * Probe contributors (registered after the app's through `appWithContributors`, src/app.ts) select
 * what an event names, in the source's own batch, with a `probe` column naming the probe; these
 * helpers read those rows back from the batches a request ran.
 */

/** The school's database, recording the rows with `probe` = `name` of every batch run through it. */
function recordingD1(inner: D1Database, name: string, rows: Record<string, unknown>[]): D1Database {
  return wrapD1(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== "batch") return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      return async (statements: D1PreparedStatement[]) => {
        const results = await target.batch(statements);
        for (const result of results) {
          for (const row of (result.results ?? []) as Record<string, unknown>[]) {
            if (row.probe === name) rows.push(row);
          }
        }
        return results;
      };
    },
  });
}

/** A /t/* request as the member through `app`: its response and the probe's rows, in batch order. */
export async function probedCall(
  app: OpenAPIHono<AppEnv>,
  probe: string,
  member: Member,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ res: ApiResponse; rows: Record<string, unknown>[] }> {
  const rows: Record<string, unknown>[] = [];
  const db = recordingD1(await schoolD1(member.tenantId), probe, rows);
  const method = init.method ?? (init.body === undefined ? "GET" : "POST");
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) },
    envWith(db),
  );
  return { res: await readResponse(response, { method, path: `/api/v1${path}` }), rows };
}
