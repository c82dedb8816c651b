/**
 * Bench data for GET /t/analytics/curators: 50 curators and 5,000 students in the demo school, with
 * group and individual assignments and a month of activity, written by a few set-based statements
 * (recursive CTEs over fixed ids, INSERT OR IGNORE), so a seed takes seconds and a re-run changes
 * nothing. The lead wires `curatorAnalyticsSeedSql` into the bench's seeding and `CURATOR_ANALYTICS_ENDPOINT`
 * into its endpoint list.
 *
 * The shape:
 * - curator c (0..49) curates group c; student n (0..4999) is a member of group n % 50; every
 *   third student also has an individual curator, (n + 7) % 50, so some are reached twice;
 *   every 50th student is inactive (never counted);
 * - one published course, one lesson holding a text block, a quiz_ref and an assignment_ref
 *   block, every student enrolled; the lesson closes 10 days before `now` in the default grid and
 *   5 days before in groups 0-9 (group schedules change who is late);
 * - over the last 40 days: block completions (every 2nd student), submitted quiz attempts (every
 *   3rd), hand-ins (every 4th, some after the closing date) and exam attempts (every 10th).
 *
 * Accounts are not meant to sign in (their password hash is not a valid one).
 */
import { DEMO } from "../seed/demo.mjs";
import { literal } from "../lib/sql.mjs";
import { curatorStudentsSql } from "../lib/curator-students.mjs";
import { activityDaysSql } from "../lib/activity-days.mjs";
import { enrollmentLastCompletionSql } from "../lib/enrollment-activity.mjs";

const DAY_MS = 86_400_000;
const ID_BASE = "01941f29-7c00-7000";

/** `ID_BASE-8cKK-<n as 12 hex digits>`: the kind of row in the fourth group keeps kinds apart. */
const KINDS = {
  curator: "8c01",
  curatorPermissions: "8c02",
  student: "8c03",
  group: "8c04",
  enrollment: "8c05",
  completion: "8c06",
  quizAttempt: "8c07",
  submission: "8c08",
  examAttempt: "8c09",
  fixed: "8c0a",
};

/**
 * The seed as one SQL text for `wrangler d1 execute --file`. `tenantId`, `idBase` (the first 18
 * characters of every id) and the counts may be changed to seed another school; `now` anchors the
 * activity (epoch ms).
 */
export function curatorAnalyticsSeedSql({ tenantId = DEMO.tenantId, idBase = ID_BASE, now = Date.now(), curators = 50, students = 5000 } = {}) {
  const t = literal(tenantId);
  const at = (kind) => `printf('%s-%s-%012x', ${literal(idBase)}, '${KINDS[kind]}', n)`;
  const idOf = (kind, expression) => `printf('%s-%s-%012x', ${literal(idBase)}, '${KINDS[kind]}', ${expression})`;
  const fixed = (n) => `${idBase}-${KINDS.fixed}-${n.toString(16).padStart(12, "0")}`;
  const ids = Array.from({ length: 11 }, (_, i) => fixed(i + 1));
  const [course, module, lesson, textBlock, quizBlock, assignmentBlock, quiz, assignment, exam, section, defaultWindow] = ids.map(literal);
  const [quizId, assignmentId] = [ids[6], ids[7]];
  const groupWindow = (g) => literal(fixed(100 + g));
  const seq = (count) => `WITH RECURSIVE seq(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM seq WHERE n < ${count - 1})`;
  const day = (expression) => `${now} - (${expression}) * ${DAY_MS}`;
  const closesAt = now - 10 * DAY_MS;
  const groupClosesAt = now - 5 * DAY_MS;
  const lessonRow = (id, type, refId, position, payload) =>
    `INSERT OR IGNORE INTO blocks (id, tenant_id, course_id, module_id, lesson_id, type, payload, ref_id, position, created_at, updated_at) VALUES (${id}, ${t}, ${course}, ${module}, ${lesson}, '${type}', ${literal(JSON.stringify(payload))}, ${refId}, ${position}, ${now}, ${now});`;

  return `${[
    // Staff and students.
    `${seq(curators)} INSERT OR IGNORE INTO users (id, tenant_id, email, password_hash, first_name, last_name, role, is_active, email_verified_at, created_at, updated_at)
      SELECT ${at("curator")}, ${t}, printf('bench.curator%02d@demo.test', n), 'bench-no-login', 'Curator', printf('Bench %02d', n), 'curator', 1, ${now}, ${now}, ${now} FROM seq;`,
    `${seq(curators)} INSERT OR IGNORE INTO curator_permissions (id, tenant_id, user_id, can_view_analytics, created_at, updated_at)
      SELECT ${at("curatorPermissions")}, ${t}, ${at("curator")}, 1, ${now}, ${now} FROM seq;`,
    `${seq(students)} INSERT OR IGNORE INTO users (id, tenant_id, email, password_hash, first_name, last_name, role, is_active, email_verified_at, individual_curator_id, created_at, updated_at)
      SELECT ${at("student")}, ${t}, printf('bench.student%04d@demo.test', n), 'bench-no-login', 'Student', printf('Bench %04d', n), 'student', n % 50 <> 49, ${now},
        CASE WHEN n % 3 = 0 THEN ${idOf("curator", `(n + 7) % ${curators}`)} END, ${now}, ${now} FROM seq;`,
    `${seq(curators)} INSERT OR IGNORE INTO groups (id, tenant_id, name, created_at, updated_at) SELECT ${at("group")}, ${t}, printf('Bench group %02d', n), ${now}, ${now} FROM seq;`,
    `${seq(curators)} INSERT OR IGNORE INTO group_curators (tenant_id, group_id, curator_id, created_at) SELECT ${t}, ${at("group")}, ${at("curator")}, ${now} FROM seq;`,
    `${seq(students)} INSERT OR IGNORE INTO group_members (tenant_id, group_id, user_id, joined_at) SELECT ${t}, ${idOf("group", `n % ${curators}`)}, ${at("student")}, ${now} FROM seq;`,
    // Written behind the app's back: the analytics scope pairs are rebuilt from those rows.
    curatorStudentsSql(tenantId).trimEnd(),
    // The content: one lesson with a text block, a quiz and an assignment; an exam over the quiz.
    `INSERT OR IGNORE INTO courses (id, tenant_id, title, slug, description, status, sequential_required, position, created_at, updated_at) VALUES (${course}, ${t}, 'Bench analytics course', 'bench-analytics-course', '', 'published', 0, 97, ${now}, ${now});`,
    `INSERT OR IGNORE INTO course_modules (id, tenant_id, course_id, title, description, position, created_at, updated_at) VALUES (${module}, ${t}, ${course}, 'Module', '', 0, ${now}, ${now});`,
    `INSERT OR IGNORE INTO lessons (id, tenant_id, course_id, module_id, title, position, created_at, updated_at) VALUES (${lesson}, ${t}, ${course}, ${module}, 'Lesson', 0, ${now}, ${now});`,
    `INSERT OR IGNORE INTO quizzes (id, tenant_id, title, description, retake_policy, default_scoring_mode, screenshot_protection_enabled, created_at, updated_at) VALUES (${quiz}, ${t}, 'Bench analytics quiz', '', 'best', 'all_or_nothing', 0, ${now}, ${now});`,
    `INSERT OR IGNORE INTO assignments (id, tenant_id, title, instructions, max_score_hundredths, created_at, updated_at) VALUES (${assignment}, ${t}, 'Bench analytics assignment', '', 10000, ${now}, ${now});`,
    `INSERT OR IGNORE INTO exams (id, tenant_id, title, description, time_limit_seconds, retake_policy, screenshot_protection_enabled, status, published_at, created_at, updated_at) VALUES (${exam}, ${t}, 'Bench analytics exam', '', 3600, 'best', 0, 'published', ${now}, ${now}, ${now});`,
    `INSERT OR IGNORE INTO exam_sections (id, tenant_id, exam_id, quiz_id, title, position, weight, created_at, updated_at) VALUES (${section}, ${t}, ${exam}, ${quiz}, 'Section', 0, 1, ${now}, ${now});`,
    lessonRow(textBlock, "text", "NULL", 0, { html: "<p>Read me</p>" }),
    lessonRow(quizBlock, "quiz_ref", quiz, 1, { quiz_id: quizId }),
    lessonRow(assignmentBlock, "assignment_ref", assignment, 2, { assignment_id: assignmentId }),
    `INSERT OR IGNORE INTO schedule_windows (id, tenant_id, course_id, group_id, grid_key, level, module_id, lesson_id, node_id, ends_at, allow_before_start, allow_after_end, created_at, updated_at)
      VALUES (${defaultWindow}, ${t}, ${course}, NULL, '', 'lesson', ${module}, ${lesson}, ${lesson}, ${closesAt}, 0, 0, ${now}, ${now});`,
    ...Array.from({ length: Math.min(10, curators) }, (_, g) => {
      const group = literal(`${idBase}-${KINDS.group}-${g.toString(16).padStart(12, "0")}`);
      return `INSERT OR IGNORE INTO schedule_windows (id, tenant_id, course_id, group_id, grid_key, level, module_id, lesson_id, node_id, ends_at, allow_before_start, allow_after_end, created_at, updated_at)
      VALUES (${groupWindow(g)}, ${t}, ${course}, ${group}, ${group}, 'lesson', ${module}, ${lesson}, ${lesson}, ${groupClosesAt}, 0, 0, ${now}, ${now});`;
    }),
    `${seq(students)} INSERT OR IGNORE INTO enrollments (id, tenant_id, course_id, student_id, enrolled_at, total_blocks, created_at, updated_at)
      SELECT ${at("enrollment")}, ${t}, ${course}, ${at("student")}, ${now}, 3, ${now}, ${now} FROM seq;`,
    `${seq(students)} INSERT OR IGNORE INTO enrollment_sources (tenant_id, enrollment_id, course_id, student_id, kind, source_key, created_at)
      SELECT ${t}, ${at("enrollment")}, ${course}, ${at("student")}, 'direct', 'direct', ${now} FROM seq;`,
    // A month and more of activity.
    `${seq(students)} INSERT OR IGNORE INTO block_completions (id, tenant_id, course_id, lesson_id, block_id, student_id, enrollment_id, source, completed_at)
      SELECT ${at("completion")}, ${t}, ${course}, ${lesson}, ${textBlock}, ${at("student")}, ${at("enrollment")}, 'manual', ${day("n % 40")} FROM seq WHERE n % 2 = 0;`,
    `${seq(students)} INSERT OR IGNORE INTO quiz_attempts (id, tenant_id, quiz_id, user_id, actor_role, status, started_at, submitted_at, score_hundredths, max_score_hundredths, score_pct_hundredths, passed, created_at, updated_at)
      SELECT ${at("quizAttempt")}, ${t}, ${quiz}, ${at("student")}, 'student', 'submitted', ${day("n % 37")} - 600000, ${day("n % 37")}, 100, 100, 10000, 1, ${now}, ${now} FROM seq WHERE n % 3 = 0;`,
    `${seq(students)} INSERT OR IGNORE INTO submissions (id, tenant_id, assignment_id, student_id, attempt, status, submitted_at, created_at, updated_at)
      SELECT ${at("submission")}, ${t}, ${assignment}, ${at("student")}, 1, 'submitted', ${day("n % 30")}, ${now}, ${now} FROM seq WHERE n % 4 = 0;`,
    `${seq(students)} INSERT OR IGNORE INTO exam_attempts (id, tenant_id, exam_id, user_id, actor_role, status, started_at, deadline_at, submitted_at, final_score_hundredths, final_max_hundredths, final_score_pct_hundredths, passed, created_at, updated_at)
      SELECT ${at("examAttempt")}, ${t}, ${exam}, ${at("student")}, 'student', 'submitted', ${day("n % 33")} - 1200000, ${day("n % 33")} + 2400000, ${day("n % 33")}, 100, 100, 10000, 1, ${now}, ${now} FROM seq WHERE n % 10 = 0;`,
    // The daily activity flags and the enrollments' latest completion of the rows above (the app's sources keep them in their batches).
    activityDaysSql(tenantId),
    enrollmentLastCompletionSql(tenantId),
  ].join("\n")}\n`;
}

/** The bench's entry, measured as the demo admin (every curator compared, default period). */
export const CURATOR_ANALYTICS_ENDPOINT = {
  name: "GET /api/v1/t/analytics/curators (50 curators, 5,000 students, admin)",
  method: "GET",
  path: "/api/v1/t/analytics/curators",
  headers: (sessions) => ({ authorization: `Bearer ${sessions.admin.token}`, "x-tenant-subdomain": DEMO.subdomain }),
};
