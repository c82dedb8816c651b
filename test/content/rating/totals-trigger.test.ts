import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";

// The triggers of the school migrations (a school database) keep rating_totals equal to the sum of the student's point events.
describe("rating totals follow point events", () => {
  it("adds on insert and subtracts on delete, per school and student", async () => {
    const fixtureD1 = env.DB_SCHOOLS_0;
    const insert = (id: string, tenant: string, student: string, points: number) =>
      fixtureD1.prepare(
        "INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, awarded_at) VALUES (?, ?, ?, 'manual', NULL, ?, ?, 1)",
      ).bind(id, tenant, student, `manual:${id}`, points);
    await fixtureD1.batch([insert("pe-1", "t-trg", "s-1", 150), insert("pe-2", "t-trg", "s-1", -25), insert("pe-3", "t-trg", "s-2", 7), insert("pe-4", "t-other", "s-1", 1)]);
    const totals = async () =>
      (await fixtureD1.prepare("SELECT tenant_id, student_id, points_hundredths FROM rating_totals WHERE tenant_id IN ('t-trg', 't-other') ORDER BY tenant_id, student_id").all()).results;
    expect(await totals()).toEqual([
      { tenant_id: "t-other", student_id: "s-1", points_hundredths: 1 },
      { tenant_id: "t-trg", student_id: "s-1", points_hundredths: 125 },
      { tenant_id: "t-trg", student_id: "s-2", points_hundredths: 7 },
    ]);
    await fixtureD1.prepare("DELETE FROM point_events WHERE id = 'pe-1'").run();
    expect((await totals())[1]).toEqual({ tenant_id: "t-trg", student_id: "s-1", points_hundredths: -25 });
  });
});
