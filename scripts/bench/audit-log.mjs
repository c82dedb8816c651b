/**
 * The bench of GET /t/audit-log (issue 31): 10,000 entries in the demo school's log over the last
 * 300 days, read by the demo admin a page of 50 at a time. Wired into scripts/bench.mjs: run
 * `auditLogBenchSql(now)` with the other bench SQL and append `AUDIT_LOG_ENDPOINT` to its endpoints.
 *
 * One statement over a recursive CTE writes every row. Ids are fixed, so a re-run inserts nothing
 * (INSERT OR IGNORE); times are relative to the first run and stay well inside the 400 days the
 * retention cron keeps.
 */
import { DEMO } from "../seed/demo.mjs";
import { benchIds, literal } from "../lib/sql.mjs";

export const AUDIT_LOG_BENCH = { entries: 10_000, days: 300 };

/** Ids of their own (the `7ad1` group), so they meet no other bench or seed id. */
const { idSql } = benchIds("7ad1");

/** The rating bench's students (scripts/bench.mjs), the targets of the user-related entries. */
const benchStudent = (n) => `'01941f29-7c00-7000-8a00-' || printf('%012x', ${n})`;

/**
 * Entry `i` cycles through six actions with `changes` shaped as their services write them; two in
 * three by the admin, the rest by the privileged curator.
 */
export function auditLogBenchSql(now, demo = DEMO) {
  const { entries, days } = AUDIT_LOG_BENCH;
  const step = Math.floor((days * 86_400_000) / entries);
  const student = benchStudent("n.i % 5000");
  const actor = (field) => `CASE WHEN n.i % 3 = 2 THEN ${literal(demo.curator[field])} ELSE ${literal(demo.admin[field])} END`;
  return `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${entries - 1})
INSERT OR IGNORE INTO audit_entries (id, tenant_id, at, actor_id, actor_role, actor_name, actor_job, action, target_type, target_id, summary, changes, request_id)
SELECT ${idSql("1", "n.i")}, ${literal(demo.tenantId)}, ${now} - n.i * ${step},
  ${actor("id")}, CASE WHEN n.i % 3 = 2 THEN 'curator' ELSE 'admin' END,
  CASE WHEN n.i % 3 = 2 THEN ${literal(`${demo.curator.firstName} ${demo.curator.lastName}`)} ELSE ${literal(`${demo.admin.firstName} ${demo.admin.lastName}`)} END, NULL,
  CASE n.i % 6 WHEN 0 THEN 'user.updated' WHEN 1 THEN 'device.blocked' WHEN 2 THEN 'enrollment.removed'
    WHEN 3 THEN 'submission.reviewed' WHEN 4 THEN 'rating.adjusted' ELSE 'accommodation.set' END,
  CASE n.i % 6 WHEN 0 THEN 'user' WHEN 1 THEN 'device' WHEN 2 THEN 'enrollment'
    WHEN 3 THEN 'submission' WHEN 4 THEN 'rating_adjustment' ELSE 'accommodation' END,
  CASE WHEN n.i % 6 IN (0, 5) THEN ${student} ELSE ${idSql("2", "n.i")} END,
  CASE n.i % 6 WHEN 0 THEN 'User updated' WHEN 1 THEN 'Device blocked' WHEN 2 THEN 'Direct enrollment removed'
    WHEN 3 THEN 'Submission accepted' WHEN 4 THEN 'Bonus points awarded' ELSE 'Accommodation profile set' END,
  CASE n.i % 6
    WHEN 0 THEN json_object('last_name', json_array('Bench ' || printf('%04d', n.i % 5000), 'Bench ' || printf('%04d', n.i % 5000) || ' Jr'))
    WHEN 1 THEN json_object('blocked', json_array(json('false'), json('true')), 'block_reason', json_array(NULL, 'Lost phone'))
    WHEN 2 THEN json_object('sources', json_array(json_array('direct'), json_array()), 'status', json_array('active', 'removed'))
    WHEN 3 THEN json_object('status', json_array('submitted', 'accepted'), 'score', json_array(NULL, printf('%d.00', n.i % 100)))
    WHEN 4 THEN json_object('student_id', json_array(NULL, ${student}), 'points', json_array(NULL, printf('%d.00', 1 + n.i % 10)), 'reason', json_array(NULL, 'Bench bonus'))
    ELSE json_object('extra_time_seconds', json_array(0, 60 * (1 + n.i % 5)))
  END,
  NULL
FROM n;
`;
}

export const AUDIT_LOG_ENDPOINT = {
  name: "GET /api/v1/t/audit-log?limit=50 (10,000 entries, admin)",
  method: "GET",
  path: "/api/v1/t/audit-log?limit=50",
  headers: (sessions) => ({ authorization: `Bearer ${sessions.admin.token}`, "x-tenant-subdomain": DEMO.subdomain }),
};
