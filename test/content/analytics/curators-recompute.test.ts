import { describe, expect, it } from "vitest";
import { curatorAnalyticsSeedSql } from "../../../scripts/bench/curator-analytics.mjs";
import { uuidv7 } from "../../../src/core/lib/ids";
import { createSchool } from "../../helpers/factories";
import { fixtureD1 } from "../../helpers/databases";
import { signedIn } from "../../helpers/users";
import { curatorAnalytics } from "./helpers";

/**
 * The figures on the bench's data (its seed at 20 curators and 2,000 students: individual and
 * group assignments, a month of every kind of activity, group schedules deciding who is late) equal a recomputation written independently here: every
 * student in scope probed per kind of activity, and the closing date as the bench's seed sets it
 * (a group grid's lesson window for groups 0-9, the default grid's otherwise).
 */

const DAY = 86_400_000;

async function seeded(now: number) {
  const school = await createSchool();
  const text = curatorAnalyticsSeedSql({ tenantId: school.id, idBase: uuidv7().slice(0, 18), now, curators: 20, students: 2000 });
  const statements = text.split(/;\n/).map((statement) => statement.trim()).filter((statement) => statement.length > 0);
  await fixtureD1.batch(statements.map((statement) => fixtureD1.prepare(statement)));
  return { school, admin: await signedIn(school, { role: "admin" }) };
}

interface Figures {
  curator_id: string | null;
  students: number;
  active: number;
  on_time: number;
  quizzes: number;
  exams: number;
}

function recomputed(tenantId: string, from: number, to: number): Promise<Figures[]> {
  const within = (column: string) => `${column} BETWEEN ${from} AND ${to}`;
  const live = "s.tenant_id = ?1 AND s.role = 'student' AND s.is_active = 1 AND s.deleted_at IS NULL";
  const closing = `coalesce(
      (SELECT w.ends_at FROM schedule_windows w JOIN group_members wm ON wm.group_id = w.group_id AND wm.user_id = x.id WHERE w.tenant_id = ?1 AND w.group_id IS NOT NULL),
      (SELECT w.ends_at FROM schedule_windows w WHERE w.tenant_id = ?1 AND w.group_id IS NULL))`;
  const text = `WITH pairs AS (
      SELECT s.individual_curator_id AS curator_id, s.id AS student_id FROM users s WHERE ${live} AND s.individual_curator_id IS NOT NULL
      UNION
      SELECT gc.curator_id, s.id FROM group_curators gc JOIN group_members gm ON gm.group_id = gc.group_id JOIN users s ON s.id = gm.user_id AND ${live}
        WHERE gc.tenant_id = ?1),
    x AS (SELECT DISTINCT student_id AS id FROM pairs),
    f AS (SELECT x.id,
        (EXISTS (SELECT 1 FROM block_completions bc WHERE bc.tenant_id = ?1 AND bc.student_id = x.id AND ${within("bc.completed_at")})
          OR EXISTS (SELECT 1 FROM quiz_attempts qa WHERE qa.tenant_id = ?1 AND qa.user_id = x.id AND qa.exam_attempt_id IS NULL AND (${within("qa.started_at")} OR ${within("qa.submitted_at")}))
          OR EXISTS (SELECT 1 FROM exam_attempts ea WHERE ea.tenant_id = ?1 AND ea.user_id = x.id AND (${within("ea.started_at")} OR ${within("ea.submitted_at")}))
          OR EXISTS (SELECT 1 FROM submissions ls WHERE ls.tenant_id = ?1 AND ls.student_id = x.id AND ${within("ls.submitted_at")})) AS active,
        (EXISTS (SELECT 1 FROM submissions ls WHERE ls.tenant_id = ?1 AND ls.student_id = x.id AND ${within("ls.submitted_at")})
          AND NOT EXISTS (SELECT 1 FROM submissions ls WHERE ls.tenant_id = ?1 AND ls.student_id = x.id AND ${within("ls.submitted_at")} AND ls.submitted_at > ${closing})) AS on_time,
        EXISTS (SELECT 1 FROM quiz_attempts qa WHERE qa.tenant_id = ?1 AND qa.user_id = x.id AND qa.exam_attempt_id IS NULL AND ${within("qa.submitted_at")}) AS quizzes,
        EXISTS (SELECT 1 FROM exam_attempts ea WHERE ea.tenant_id = ?1 AND ea.user_id = x.id AND ${within("ea.submitted_at")}) AS exams
      FROM x)
    SELECT p.curator_id, count(*) AS students, sum(f.active) AS active, sum(f.on_time) AS on_time, sum(f.quizzes) AS quizzes, sum(f.exams) AS exams
      FROM pairs p JOIN f ON f.id = p.student_id GROUP BY p.curator_id
    UNION ALL
    SELECT NULL, count(*), sum(active), sum(on_time), sum(quizzes), sum(exams) FROM f`;
  return fixtureD1.prepare(text).bind(tenantId).all<Figures>().then((result) => result.results);
}

describe("GET /analytics/curators: the figures equal a recomputation", () => {
  it("at 20 curators and 2,000 students, for windows ending before, across and after the closing dates", async () => {
    const now = Date.UTC(2026, 10, 28, 12);
    const { school, admin } = await seeded(now);
    for (const [fromDays, toDays] of [[40, 0], [20, 7], [12, 11], [3, 0]] as const) {
      const from = now - fromDays * DAY;
      const to = now - toDays * DAY;
      const res = await curatorAnalytics(admin, `?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const data = res.body.data;
      const figures = (curatorId: string | null, row: any): Figures => ({
        curator_id: curatorId,
        students: row.students,
        active: row.active.students,
        on_time: row.assignments_on_time.students,
        quizzes: row.quizzes_completed.students,
        exams: row.exams_completed.students,
      });
      const served = [...data.curators.map((row: any) => figures(row.curator_id, row)), figures(null, data.summary)];
      const expected = await recomputed(school.id, from, to);
      const byCurator = (rows: Figures[]) => [...rows].sort((a, b) => String(a.curator_id).localeCompare(String(b.curator_id)));
      expect(byCurator(served)).toEqual(byCurator(expected));
      // The windows are chosen so that each figure has students on both sides.
      expect({ fromDays, toDays, active: data.summary.active.students > 0 }).toEqual({ fromDays, toDays, active: true });
    }
  });
});
