import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { countingD1, roundTripD1 } from "../helpers/d1-counter";
import { FIXTURES, mediaSchool } from "./helpers";
import { schoolD1 } from "../helpers/databases";
import { envWith } from "../helpers/wrapped-d1";

describe("cost of POST /t/media/presign", () => {
  it("costs at most 3 D1 round trips: authentication, then one batch (conditional insert with the quota, and the school read)", async () => {
    const { school, student } = await mediaSchool();
    const send = (db: D1Database) =>
      app.request(
        "https://api.lms.localhost/api/v1/t/media/presign",
        {
          method: "POST",
          headers: { authorization: `Bearer ${student.token}`, "x-tenant-subdomain": school.subdomain, "content-type": "application/json" },
          body: JSON.stringify({ kind: "image", filename: "a.png", declared_size: FIXTURES.png.length, declared_mime: "image/png" }),
        },
        envWith(db),
      );
    const counted = roundTripD1(await schoolD1(school.id));
    const res = await send(counted.db);
    expect(res.status).toBe(200);
    expect(counted.stats).toEqual({ batches: 1, statements: 1 });
    expect(counted.roundTrips()).toBeLessThanOrEqual(3);
    // The project's counter agrees: one standalone statement (authentication), one batch of two.
    const projectCounter = countingD1(await schoolD1(school.id));
    expect((await send(projectCounter.db)).status).toBe(200);
    expect(projectCounter.counts).toEqual({ prepare: 3, batch: 1, exec: 0 });
  });
});
