import { env } from "cloudflare:test";
import { app } from "../../src/app";
import { countingD1 } from "./d1-counter";

/** A /t/* request as the member through the app, with a D1 binding that counts what it asks of D1. */
export async function countedRequest(member: { token: string; subdomain: string }, path: string, init: { method?: string; body?: unknown } = {}) {
  const counting = countingD1(env.DB);
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) },
    { ...env, DB: counting.db },
  );
  await response.arrayBuffer();
  return { status: response.status, counts: { ...counting.counts } };
}
