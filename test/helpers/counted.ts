import { app } from "../../src/app";
import { schoolD1 } from "./databases";
import { countingD1 } from "./d1-counter";
import { envWith } from "./wrapped-d1";

/**
 * A /t/* request as the member through the app, counting what it asks of the school's database
 * (its shard: the auth check's statement and the request's own). The control database's read of the
 * school row beside it is not counted here (test/auth/round-trips.test.ts counts both).
 */
export async function countedRequest(member: { token: string; subdomain: string; tenantId: string }, path: string, init: { method?: string; body?: unknown } = {}) {
  const school = countingD1(await schoolD1(member.tenantId));
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) },
    envWith(school.db),
  );
  await response.arrayBuffer();
  return { status: response.status, counts: { ...school.counts } };
}
