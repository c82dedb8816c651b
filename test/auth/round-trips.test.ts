import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { countingD1 } from "../helpers/d1-counter";
import { createUser, createSchool, login } from "../helpers/factories";
import { schoolD1 } from "../helpers/databases";
import { envWith } from "../helpers/wrapped-d1";

describe("cost of an authenticated request", () => {
  it("GET /auth/me costs at most 2 D1 round trips (the auth check is one query on the school's shard beside one on the control database)", async () => {
    const school = await createSchool();
    const user = await createUser(school.id, { role: "curator", permissions: { can_manage_students: true } });
    const session = await login(user, { subdomain: school.subdomain });
    const counting = countingD1(await schoolD1(school.id));
    const control = countingD1(env.DB);
    const res = await app.request(
      "https://api.lms.localhost/api/v1/auth/me",
      { headers: { authorization: `Bearer ${session.token}`, "x-tenant-subdomain": school.subdomain } },
      envWith([counting.db, control.db]),
    );
    expect(res.status).toBe(200);
    // Every round trip needs a prepared statement or a batch, so their sum bounds the round trips.
    const upperBound = counting.counts.prepare + counting.counts.batch + counting.counts.exec;
    expect(upperBound).toBeLessThanOrEqual(2);
    expect(counting.counts).toEqual({ prepare: 1, batch: 0, exec: 0 });
    // The school row (status, plan, shard) comes from the control database, in parallel with the shard's query.
    expect(control.counts).toEqual({ prepare: 1, batch: 0, exec: 0 });
  });
});
