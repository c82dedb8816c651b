#!/usr/bin/env node
/**
 * npm run capacity [-- --schools N --students N --peak-share F --years N --json]
 *
 * How many school shards (D1 databases, the DB_SCHOOLS_0..N-1 bindings) the target needs so that no
 * shard passes half of its statement rate or half of its 10 GB, for an exam peak and a normal
 * school day. Method and limits: docs/capacity.md. Plain Node, no dependencies, deterministic;
 * exits 1 when its inputs contradict each other (a measured count that disagrees with what a test
 * asserts, a table that no longer exists in the schema, a bench figure outside its recorded range).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

const DEFAULTS = {
  schools: 10_000,
  students: 5_000, // per school
  peakShare: 0.1, // share of all students in the exam peak
  years: 1, // school years of data a shard holds (nothing of a student's history is purged yet)
  startWindow: 120, // s over which the exam takers press "start"
  finishWindow: 120, // s over which they submit (or the deadline alarm finalizes them, same statements)
  examSeconds: 600, // the exam lasts at most 10 minutes
  saveEvery: 10, // s between two section saves of one student
  dayActiveShare: 0.5, // share of all students active in the busiest school hour
  json: false,
};

function parseArgs(argv) {
  const options = { ...DEFAULTS };
  const numeric = { "--schools": "schools", "--students": "students", "--peak-share": "peakShare", "--years": "years", "--start-window": "startWindow", "--finish-window": "finishWindow", "--active-share": "dayActiveShare" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--json") options.json = true;
    else if (arg in numeric) {
      const value = Number(argv[++i]);
      if (!Number.isFinite(value) || value <= 0) fail(`${arg} needs a positive number`);
      options[numeric[arg]] = value;
    } else if (arg === "--help" || arg === "-h") {
      console.log("npm run capacity [-- --schools N --students N --peak-share F --years N --start-window S --finish-window S --active-share F --json]");
      process.exit(0);
    } else fail(`unknown argument ${arg}`);
  }
  if (options.peakShare > 1 || options.dayActiveShare > 1) fail("shares are fractions (0..1]");
  return options;
}

function fail(message) {
  console.error(`capacity: ${message}`);
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Inputs: D1 limits
// ---------------------------------------------------------------------------------------------

/** Cloudflare's D1 limits page (Workers Paid) and its FAQ on throughput. */
const D1 = {
  maxBytes: 10 * 1e9, // "Maximum database size: 10 GB"
  accountBytes: 1e12, // "Maximum storage per account: 1 TB" (can be raised on request)
  bindingsPerWorker: 5_000, // "Maximum bindings per Workers script: approximately 5,000"
  databasesPerAccount: 50_000, // "Databases per account: 50,000" (raised on request)
  headroom: 0.5, // a shard stays below half of its statement rate and half of its size
};

// ---------------------------------------------------------------------------------------------
// Inputs: the bench (npm run bench), for the mean statement time
// ---------------------------------------------------------------------------------------------

/**
 * A D1 database runs one statement at a time, so its rate is 1 / mean statement time. The bench
 * gives that time as the difference between GET /auth/me (health plus exactly one D1 statement,
 * test/auth/round-trips.test.ts) and GET /health at concurrency 32, the run recorded when the auth
 * area was built (health 587 req/s, /auth/me 361 req/s, 2-core machine). docs/decisions/performance.md,
 * "Performance notes", records the /auth/me ratio of later runs: 0.57x-0.63x at c32.
 */
const BENCH = {
  healthC32: 587, // req/s
  authMeC32: 361, // req/s, one D1 statement more than health
  recordedRatioRange: [0.55, 0.65], // /auth/me : health at c32 across the recorded runs
};
const STATEMENT_MS = (1 / BENCH.authMeC32 - 1 / BENCH.healthC32) * 1000;
const STATEMENTS_PER_SECOND = 1000 / STATEMENT_MS; // one shard, at 100 %
const SHARD_BUDGET = STATEMENTS_PER_SECOND * D1.headroom; // statements/s a shard may take

// ---------------------------------------------------------------------------------------------
// Inputs: what one request asks of D1
// ---------------------------------------------------------------------------------------------

/**
 * Per request class: statements that read (reads) and write (writes, INSERT/UPDATE/DELETE, the
 * conditional ones included), D1 round trips (trips), and rows written as D1 reports them
 * (rows_written counts index entries too). `asserted` is the round-trip (or statement) count a
 * test asserts for the class; the script checks the split adds up to it. The split and the rows
 * were counted once with a recording D1 wrapper over the same test harness (test/helpers/
 * d1-counter.ts style): quiz of 20 single-choice questions, exam of 2 sections x 10 questions, a
 * student with an individual curator and push devices, events on (so the pushes are written).
 * Batched statements count like the others: D1 runs each one.
 */
const REQUESTS = {
  // test/auth/round-trips.test.ts: {prepare: 1, batch: 0}, the auth check; every /t/* request pays it.
  auth_me: { label: "GET /auth/me", reads: 1, writes: 0, rows: 0, trips: 1, asserted: { trips: 1, statements: 1, test: "test/auth/round-trips.test.ts" } },
  // Sign-in: guard reads, then one batch inserting session, device, device event, outbox row and
  // clearing failures (test/auth/login.test.ts, test/devices/login-device.test.ts cover the rows).
  login: { label: "POST /auth/login", reads: 7, writes: 6, rows: 22, trips: 4, asserted: null },
  // Rotation: read and a two-statement conditional rotate (test/auth/refresh.test.ts, session-family.test.ts).
  refresh: { label: "POST /auth/refresh", reads: 1, writes: 2, rows: 2, trips: 2, asserted: null },
  // test/content/courses/courses-performance.test.ts: {prepare: 3, batch: 1}, the auth query and one batch of two.
  courses_list: { label: "GET /t/courses", reads: 3, writes: 0, rows: 0, trips: 2, asserted: { trips: 2, statements: 3, test: "test/content/courses/courses-performance.test.ts" } },
  // test/content/courses/module-index-performance.test.ts: {prepare: 2, batch: 1}, 2 round trips, the guard's included.
  module_index: { label: "GET /t/courses/:id/modules", reads: 2, writes: 0, rows: 0, trips: 2, asserted: { trips: 2, statements: 2, test: "test/content/courses/module-index-performance.test.ts" } },
  // test/content/courses/lesson-read-round-trips.test.ts: guard + one batch; the resume UPDATE rides in it.
  lesson_read: { label: "GET /t/lessons/:id (and /blocks)", reads: 3, writes: 1, rows: 1, trips: 2, asserted: { trips: 2, test: "test/content/courses/lesson-read-round-trips.test.ts" } },
  // test/content/courses/completion-events.test.ts: guard + one batch (completion, recount, event settings).
  block_complete: { label: "POST /t/blocks/:id/complete", reads: 9, writes: 2, rows: 6, trips: 2, asserted: { trips: 2, test: "test/content/courses/completion-events.test.ts" } },
  // Same test: the course-completing one adds the batch with the pushes and awards.
  course_complete: { label: "POST /t/blocks/:id/complete (completes the course)", reads: 13, writes: 10, rows: 42, trips: 3, asserted: { trips: 3, test: "test/content/courses/completion-events.test.ts" } },
  // test/content/rating/leaderboard-round-trips.test.ts: guard + one batch.
  rating: { label: "GET /t/rating", reads: 3, writes: 0, rows: 0, trips: 2, asserted: { trips: 2, test: "test/content/rating/leaderboard-round-trips.test.ts" } },
  // test/content/exams/exams-read.test.ts: 2 round trips for /t/exams and /t/exams/:id.
  exam_read: { label: "GET /t/exams/:id", reads: 3, writes: 0, rows: 0, trips: 2, asserted: { trips: 2, test: "test/content/exams/exams-read.test.ts" } },
  // Quiz read as a student: guard + one batch (test/content/quizzes/quiz-read.test.ts covers the view).
  quiz_read: { label: "GET /t/quizzes/:id", reads: 5, writes: 0, rows: 0, trips: 2, asserted: null },
  // Start: guard, the start's read batch, the conditional insert batch (test/content/attempts/attempts-flow.test.ts).
  quiz_start: { label: "POST /t/attempts", reads: 6, writes: 1, rows: 5, trips: 3, asserted: null },
  // test/content/attempts/attempts-performance.test.ts: one round trip (the guard), no D1 write:
  // answers go to the attempt's AttemptJournal Durable Object (durable-objects/attempt-journal.ts).
  quiz_save: { label: "POST /t/attempts/:id/answers", reads: 1, writes: 0, rows: 0, trips: 1, asserted: { trips: 1, test: "test/content/attempts/attempts-performance.test.ts" } },
  // Same file: reads stay within 3 round trips.
  attempt_read: { label: "GET /t/attempts/:id", reads: 4, writes: 0, rows: 0, trips: 2, asserted: { trips: 2, test: "test/content/attempts/attempts-performance.test.ts (<= 3)" } },
  // Same file: the guard's read, the scoring read, the write batch (answers as one INSERT ... SELECT
  // of N rows, scores, award, pushes): the same for 100 questions as for 1; rows grow with questions.
  quiz_submit: { label: "POST /t/attempts/:id/submit", reads: 22, writes: 15, rows: 126, trips: 3, asserted: { trips: 3, test: "test/content/attempts/attempts-performance.test.ts" } },
  // Exam start: guard, read, insert batch (test/content/exams/exam-attempts-flow.test.ts).
  exam_start: { label: "POST /t/exam-attempts", reads: 7, writes: 1, rows: 5, trips: 3, asserted: null },
  // test/content/exams/exam-attempts-performance.test.ts: go = guard, one read, one write batch.
  exam_go: { label: "POST /t/exam-attempts/:id/go", reads: 9, writes: 2, rows: 8, trips: 3, asserted: { trips: 3, test: "test/content/exams/exam-attempts-performance.test.ts" } },
  // Same file: a section save = the guard's read and the lookup of the section's quiz attempt; no D1
  // write (the answers go to that attempt's AttemptJournal).
  exam_save: { label: "POST /t/exam-attempts/:id/sections/:n/answers", reads: 2, writes: 0, rows: 0, trips: 2, asserted: { trips: 2, test: "test/content/exams/exam-attempts-performance.test.ts" } },
  // Same file: reads stay within 3 round trips and write nothing.
  exam_attempt_read: { label: "GET /t/exam-attempts/:id", reads: 4, writes: 0, rows: 0, trips: 2, asserted: { trips: 2, test: "test/content/exams/exam-attempts-performance.test.ts (<= 3)" } },
  // Same file: 6 round trips (guard, submit read, finish read, sections' scoring read, their write,
  // the final write), the same for 50 questions a section as for 1.
  exam_submit: { label: "POST /t/exam-attempts/:id/submit", reads: 34, writes: 16, rows: 98, trips: 6, asserted: { trips: 6, test: "test/content/exams/exam-attempts-performance.test.ts" } },
  // test/content/submissions/submit-statements.test.ts: 3 round trips, the same for 20 files as for 1.
  submission_submit: { label: "POST /t/submissions/:id/submit", reads: 17, writes: 10, rows: 37, trips: 3, asserted: { trips: 3, test: "test/content/submissions/submit-statements.test.ts" } },
  // The push queue's consumer for one event's pushes (claim, deliveries, settle): test/notifications/delivery.test.ts.
  push_delivery: { label: "push queue: deliver one event's pushes", reads: 3, writes: 7, rows: 12, trips: 5, asserted: null },
};

// ---------------------------------------------------------------------------------------------
// Inputs: the two scenarios
// ---------------------------------------------------------------------------------------------

/**
 * Normal school day, the busiest hour: requests per active student per hour. Access tokens live
 * 900 s (ACCESS_TOKEN_TTL_SECONDS in wrangler.toml), so an active app refreshes 4 times an hour.
 */
const DAY_MIX = {
  login: 0.1, // a new session about once a week per device
  refresh: 4,
  auth_me: 1,
  courses_list: 2,
  module_index: 2,
  lesson_read: 10, // a lesson and its blocks, ~5 lessons
  block_complete: 8,
  course_complete: 0.02,
  rating: 0.5,
  exam_read: 0.3,
  quiz_read: 1,
  quiz_start: 1,
  quiz_save: 15, // an answer every ~20 s during a 5-minute quiz
  attempt_read: 1,
  quiz_submit: 1,
  submission_submit: 0.2,
  push_delivery: 1.2, // one per push-producing event: quiz results, submissions, course completions, curators' news
};

/**
 * The exam peak: per student taking the exam (one exam of 2 sections, at most `examSeconds`).
 * `phase`: "start" requests fall in the start window, "finish" ones in the finish window, "steady"
 * ones spread over the exam, "save" ones every `saveEvery` seconds throughout.
 */
const EXAM_TIMELINE = [
  { request: "exam_read", count: 1, phase: "start" },
  { request: "exam_start", count: 1, phase: "start" },
  { request: "exam_go", count: 1, phase: "start" }, // section 1
  { request: "exam_go", count: 1, phase: "steady" }, // section 2
  { request: "exam_attempt_read", count: 2, phase: "steady" }, // the app's reloads
  { request: "refresh", count: 1, phase: "steady" },
  { request: "exam_save", count: null, phase: "save" },
  { request: "exam_submit", count: 1, phase: "finish" },
  { request: "push_delivery", count: 1, phase: "finish" }, // the result's pushes
];

// ---------------------------------------------------------------------------------------------
// Inputs: storage, from the schema
// ---------------------------------------------------------------------------------------------

/**
 * Rows a student adds per school year (180 school days). Nothing of this is purged today except
 * device_events (retention days) and login_failures, so a shard holds `years` of it.
 */
const ROWS_PER_STUDENT_YEAR = {
  users: 1 / 3, // one row, spread over the years a student stays (3)
  push_preferences: 1 / 3,
  rating_totals: 1 / 3,
  auth_devices: 1,
  push_devices: 1,
  group_members: 1,
  sessions: 72, // a new session every ~5 school days on each of 2 devices; refresh rotates in place
  device_events: 72, // purged after the school's retention days; counted whole (one year of them)
  enrollments: 8,
  enrollment_sources: 8,
  block_completions: 900, // 5 blocks a school day
  quiz_attempts: 120, // 100 quizzes (about 3 a week) and 10 exams of 2 sections
  quiz_attempt_answers: 1_440, // 12 answers an attempt
  exam_attempts: 10,
  exam_section_attempts: 20,
  submissions: 72, // two a week
  submission_attachments: 36,
  media_assets: 36,
  point_events: 400, // awards: lessons, quizzes, exams, submissions
  notification_outbox: 180, // a push a school day
  notification_deliveries: 270, // 1.5 devices a push
  email_outbox: 2,
  password_reset_codes: 1,
};

/** A school's own rows (content, staff, settings), written once and edited; counted once per school. */
const ROWS_PER_SCHOOL = {
  users: 250, // curators and admins
  curator_permissions: 250,
  groups: 150,
  group_curators: 300,
  courses: 60,
  course_modules: 600,
  lessons: 3_000,
  blocks: 15_000,
  quizzes: 600,
  quiz_questions: 12_000,
  quiz_answers: 48_000,
  quiz_matches: 2_000,
  exams: 30,
  exam_sections: 60,
  assignments: 300,
  schedule_windows: 500,
  rating_rules: 100,
  notification_event_settings: 20,
  notification_campaigns: 100,
  notification_campaign_recipients: 100 * 2_500,
  media_assets: 5_000,
};

/**
 * Bytes of a stored value. SQLite stores integers in 1-8 bytes (timestamps in ms take 6) and text
 * as its UTF-8 bytes; ids are UUID text (36). Columns whose typical content is long are named.
 */
const TEXT_BYTES = {
  "blocks.payload": 800,
  "quiz_questions.prompt": 200,
  "quiz_answers.text": 40,
  "quiz_attempt_answers.payload": 60,
  "submissions.text": 1_000,
  "submissions.feedback": 100,
  "notification_outbox.title": 40,
  "notification_outbox.body": 120,
  "notification_outbox.data": 150,
  "notification_outbox.deep_link": 60,
  "notification_outbox.dedupe_key": 90,
  "notification_campaigns.body": 300,
  "sessions.user_agent": 120,
  "device_events.user_agent": 120,
  "device_events.detail": 60,
  "point_events.source_key": 80,
  "users.email": 28,
  "users.password_hash": 100,
  "push_devices.token_ciphertext": 250,
  "email_outbox.text_body": 1_000,
  "email_outbox.html_body": 4_000,
  "courses.description": 300,
  "quizzes.description": 200,
  "assignments.instructions": 500,
};
const DEFAULT_TEXT_BYTES = 16;
const ID_BYTES = 36;
/**
 * SQLite B-tree pages are not full: in-order inserts (uuidv7 ids) fill leaves to ~0.9, indexes in
 * random order to ~0.7; 0.85 is a planning figure.
 */
const PAGE_FILL = 0.85;

/**
 * The estimate checked against SQLite itself: all migrations applied to an empty database with the
 * sqlite3 CLI, 30,000 rows of UUID-text ids inserted into each table, bytes a row with its indexes
 * read from dbstat (sum(pgsize) / rows). The script fails when its estimate drifts by more than
 * a third from these.
 */
const MEASURED_ROW_BYTES = { quiz_attempt_answers: 594, block_completions: 664 };

function valueBytes(table, column) {
  const key = `${table}.${column.name}`;
  if (key in TEXT_BYTES) return TEXT_BYTES[key];
  if (column.type === "integer") {
    if (/_at$|^until$/.test(column.name)) return 6;
    if (/^(is_|can_|allow_|hide_|notify_|revoke_)|enabled|passed|auto_finalized|pending_review|sequential_required|protection/.test(column.name)) return 1;
    return 3;
  }
  if (column.type === "real") return 8;
  if (column.name === "id" || /_id$|_by$|^created_by|^graded_by/.test(column.name)) return ID_BYTES;
  return DEFAULT_TEXT_BYTES;
}

/** A row and its index entries: record header (a byte a column), cell pointer, lengths, rowid; an index entry carries its key and the rowid. */
function rowBytes(table, snapshotTable) {
  const columns = Object.values(snapshotTable.columns);
  const byName = new Map(columns.map((column) => [column.name, column]));
  const record = columns.reduce((sum, column) => sum + valueBytes(table, column), 0) + columns.length + 9;
  const isId = (name) => byName.has(name) && byName.get(name).type === "text" && valueBytes(table, byName.get(name)) === ID_BYTES;
  let idBytes = columns.filter((column) => isId(column.name)).length * ID_BYTES;
  const keys = Object.values(snapshotTable.indexes).map((index) => index.columns);
  const primary = columns.filter((column) => column.primaryKey && column.type === "text").map((column) => column.name);
  if (primary.length > 0) keys.push(primary); // a TEXT primary key is a unique index beside the rowid
  for (const composite of Object.values(snapshotTable.compositePrimaryKeys ?? {})) keys.push(composite.columns);
  const indexes = keys.reduce((sum, key) => sum + key.reduce((s, name) => s + (byName.has(name) ? valueBytes(table, byName.get(name)) : DEFAULT_TEXT_BYTES), 0) + key.length + 10, 0);
  for (const key of keys) idBytes += key.filter(isId).length * ID_BYTES;
  return { record, indexes, total: (record + indexes) / PAGE_FILL, indexCount: keys.length, idShare: idBytes / (record + indexes) };
}

/** The newest drizzle snapshot of every migrations folder (one today; control and school after the shard move). */
function loadSchema() {
  const tables = {};
  const folders = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const path = join(dir, entry.name);
      if (entry.name === "meta") folders.push(path);
      else walk(path);
    }
  };
  const migrations = join(ROOT, "migrations");
  if (!existsSync(migrations)) fail("migrations/ not found");
  walk(migrations);
  const used = [];
  for (const folder of folders.sort()) {
    const snapshots = readdirSync(folder).filter((name) => /^\d+_snapshot\.json$/.test(name)).sort();
    if (snapshots.length === 0) continue;
    const newest = join(folder, snapshots.at(-1));
    used.push(newest.slice(ROOT.length + 1));
    Object.assign(tables, JSON.parse(readFileSync(newest, "utf8")).tables);
  }
  if (used.length === 0) fail("no drizzle snapshot under migrations/*/meta");
  return { tables, used };
}

// ---------------------------------------------------------------------------------------------
// Self-checks
// ---------------------------------------------------------------------------------------------

function check(schema) {
  const problems = [];
  for (const [name, request] of Object.entries(REQUESTS)) {
    if (request.reads + request.writes < request.trips) problems.push(`${name}: fewer statements than round trips`);
    if (request.writes > 0 && request.rows < request.writes) problems.push(`${name}: fewer rows written than write statements`);
    if (request.asserted && request.asserted.trips !== request.trips) problems.push(`${name}: ${request.trips} round trips, ${request.asserted.test} asserts ${request.asserted.trips}`);
    if (request.asserted?.statements !== undefined && request.asserted.statements !== request.reads + request.writes) problems.push(`${name}: ${request.reads + request.writes} statements, ${request.asserted.test} asserts ${request.asserted.statements}`);
  }
  for (const name of [...Object.keys(DAY_MIX), ...EXAM_TIMELINE.map((step) => step.request)]) if (!(name in REQUESTS)) problems.push(`scenario names unknown request ${name}`);
  for (const table of [...Object.keys(ROWS_PER_STUDENT_YEAR), ...Object.keys(ROWS_PER_SCHOOL)]) if (!(table in schema.tables)) problems.push(`table ${table} is not in the schema (${schema.used.join(", ")})`);
  for (const key of Object.keys(TEXT_BYTES)) {
    const [table, column] = key.split(".");
    if (!schema.tables[table] || !Object.values(schema.tables[table].columns).some((c) => c.name === column)) problems.push(`column ${key} is not in the schema`);
  }
  for (const [table, measured] of Object.entries(MEASURED_ROW_BYTES)) {
    const estimate = rowBytes(table, schema.tables[table]).total;
    if (Math.abs(estimate - measured) / measured > 1 / 3) problems.push(`row size of ${table}: estimate ${Math.round(estimate)} B, measured ${measured} B`);
  }
  const ratio = BENCH.authMeC32 / BENCH.healthC32;
  if (ratio < BENCH.recordedRatioRange[0] || ratio > BENCH.recordedRatioRange[1]) problems.push(`bench: /auth/me at ${ratio.toFixed(2)}x health, outside the recorded ${BENCH.recordedRatioRange.join("-")}x`);
  if (!(STATEMENT_MS > 0)) problems.push("bench: /auth/me must be slower than health");
  if (problems.length > 0) fail(`inconsistent inputs:\n  ${problems.join("\n  ")}`);
}

// ---------------------------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------------------------

/**
 * Load of a set of request rates: what the primary of a shard executes. Write requests run on the
 * primary whole; a read-only request runs its access check there (session, billing: they decide
 * access, so they stay on the primary) and the rest of its reads on a replica when D1's Sessions
 * API serves them (withSession), or on the primary without replicas.
 */
function load(rates) {
  const total = { writes: 0, reads: 0, rows: 0, primaryReplicas: 0, primaryAlone: 0 };
  const byRequest = [];
  for (const [name, perSecond] of Object.entries(rates)) {
    const request = REQUESTS[name];
    const writes = request.writes * perSecond;
    const reads = request.reads * perSecond;
    const primaryReads = request.writes > 0 ? request.reads : Math.min(1, request.reads);
    const primary = (request.writes + primaryReads) * perSecond;
    total.writes += writes;
    total.reads += reads;
    total.rows += request.rows * perSecond;
    total.primaryReplicas += primary;
    total.primaryAlone += writes + reads;
    byRequest.push({ name, perSecond, writes, reads, primary });
  }
  return { ...total, byRequest };
}

function examPeak(options) {
  const takers = options.schools * options.students * options.peakShare;
  const phaseRate = { start: takers / options.startWindow, finish: takers / options.finishWindow, steady: takers / options.examSeconds, save: takers / options.saveEvery };
  // The busiest second overlaps saves and steady traffic with the start burst or the finish burst.
  const phases = {};
  for (const burst of ["start", "finish"]) {
    const rates = {};
    for (const step of EXAM_TIMELINE) {
      if (step.phase !== burst && step.phase !== "steady" && step.phase !== "save") continue;
      const perSecond = step.phase === "save" ? phaseRate.save : phaseRate[step.phase] * step.count;
      rates[step.request] = (rates[step.request] ?? 0) + perSecond;
    }
    phases[burst] = load(rates);
  }
  const worst = phases.finish.primaryReplicas >= phases.start.primaryReplicas ? "finish" : "start";
  return { takers, phases, worst, peak: phases[worst] };
}

function schoolDay(options) {
  const active = options.schools * options.students * options.dayActiveShare;
  const rates = Object.fromEntries(Object.entries(DAY_MIX).map(([name, perHour]) => [name, (active * perHour) / 3600]));
  return { active, peak: load(rates) };
}

function storage(options, schema) {
  const perTable = [];
  let studentYear = 0;
  let studentYearIds = 0;
  for (const [table, rows] of Object.entries(ROWS_PER_STUDENT_YEAR)) {
    const size = rowBytes(table, schema.tables[table]);
    studentYear += rows * size.total;
    studentYearIds += rows * size.total * size.idShare;
    perTable.push({ table, scope: "student-year", rows, bytesPerRow: size.total, indexes: size.indexCount, bytes: rows * size.total });
  }
  let school = 0;
  for (const [table, rows] of Object.entries(ROWS_PER_SCHOOL)) {
    const size = rowBytes(table, schema.tables[table]);
    school += rows * size.total;
    perTable.push({ table, scope: "school", rows, bytesPerRow: size.total, indexes: size.indexCount, bytes: rows * size.total });
  }
  const perSchool = school + options.students * studentYear * options.years;
  return { studentYear, idShare: studentYearIds / studentYear, school, perSchool, total: perSchool * options.schools, perTable };
}

/** Shards so that no shard passes its budget, schools spread evenly (a new school takes the emptiest shard). */
function shardsFor(amount, budget) {
  return Math.max(1, Math.ceil(amount / budget));
}

function shardCounts(scenarioLoad, bytes, options) {
  const writes = shardsFor(scenarioLoad.writes, SHARD_BUDGET);
  const primary = shardsFor(scenarioLoad.primaryReplicas, SHARD_BUDGET);
  const noReplicas = shardsFor(scenarioLoad.primaryAlone, SHARD_BUDGET);
  const size = shardsFor(bytes, D1.maxBytes * D1.headroom);
  // One school cannot span shards: its own load must fit one shard's budget.
  const perSchool = scenarioLoad.primaryReplicas / options.schools;
  return { writes, primary, noReplicas, size, binding: Math.max(writes, primary, size), perSchoolPrimary: perSchool, schoolFits: perSchool <= SHARD_BUDGET };
}

function dominant(scenarioLoad, key, top = 3) {
  const sum = scenarioLoad.byRequest.reduce((s, r) => s + r[key], 0);
  return [...scenarioLoad.byRequest]
    .sort((a, b) => b[key] - a[key] || a.name.localeCompare(b.name))
    .slice(0, top)
    .filter((r) => r[key] > 0)
    .map((r) => ({ request: REQUESTS[r.name].label, share: r[key] / sum }));
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

const int = (n) => Math.round(n).toLocaleString("en-US");
const gb = (bytes) => `${(bytes / 1e9).toLocaleString("en-US", { maximumFractionDigits: 1 })} GB`;
const pct = (x) => `${(x * 100).toFixed(0)} %`;

function main() {
  const options = parseArgs(process.argv.slice(2));
  const schema = loadSchema();
  check(schema);
  const exam = examPeak(options);
  const day = schoolDay(options);
  const stored = storage(options, schema);
  const examShards = shardCounts(exam.peak, stored.total, options);
  const dayShards = shardCounts(day.peak, stored.total, options);
  const binding = Math.max(examShards.binding, dayShards.binding);
  // The largest school one shard can hold: by size (half of 10 GB for `years` of data) and by the
  // exam peak's statements on its primary (replicas on).
  const perStudentPeak = exam.peak.primaryReplicas / (options.schools * options.students);
  const largestSchool = {
    bySize: Math.max(0, Math.floor((D1.maxBytes * D1.headroom - stored.school) / (stored.studentYear * options.years))),
    byExamPeak: Math.floor(SHARD_BUDGET / perStudentPeak),
  };
  const reachable = binding <= options.schools && binding <= D1.bindingsPerWorker && examShards.schoolFits && dayShards.schoolFits && stored.perSchool <= D1.maxBytes * D1.headroom;
  const result = {
    options,
    inputs: {
      d1: D1,
      bench: { ...BENCH, statementMs: STATEMENT_MS, statementsPerSecond: STATEMENTS_PER_SECOND, shardBudget: SHARD_BUDGET },
      requests: REQUESTS,
      schema: schema.used,
    },
    storage: { bytesPerStudentYear: stored.studentYear, idShareOfStudentYear: stored.idShare, bytesPerSchoolContent: stored.school, bytesPerSchool: stored.perSchool, totalBytes: stored.total, perTable: stored.perTable },
    exam: { takers: exam.takers, worstPhase: exam.worst, writes: exam.peak.writes, reads: exam.peak.reads, rowsWritten: exam.peak.rows, primaryWithReplicas: exam.peak.primaryReplicas, primaryWithoutReplicas: exam.peak.primaryAlone, shards: examShards, dominantPrimary: dominant(exam.peak, "primary"), dominantWrites: dominant(exam.peak, "writes") },
    day: { activeStudents: day.active, writes: day.peak.writes, reads: day.peak.reads, rowsWritten: day.peak.rows, primaryWithReplicas: day.peak.primaryReplicas, primaryWithoutReplicas: day.peak.primaryAlone, shards: dayShards, dominantPrimary: dominant(day.peak, "primary"), dominantWrites: dominant(day.peak, "writes") },
    binding,
    largestSchool,
    configure: reachable ? binding : null,
    warnings: [],
  };
  if (!examShards.schoolFits || !dayShards.schoolFits) result.warnings.push("one school's own statements pass half of a shard: sharding by school cannot fix it");
  if (stored.perSchool > D1.maxBytes * D1.headroom) result.warnings.push(`one school's ${options.years} year(s) of rows (${gb(stored.perSchool)}) pass half of a database: sharding by school cannot fix it`);
  if (binding > D1.bindingsPerWorker) result.warnings.push(`${int(binding)} shards pass the ~${int(D1.bindingsPerWorker)} bindings of one Worker`);
  if (binding > options.schools) result.warnings.push(`${int(binding)} shards for ${int(options.schools)} schools: more shards than schools`);
  if (stored.total > D1.accountBytes) result.warnings.push(`${gb(stored.total)} passes the account's ${gb(D1.accountBytes)} of D1 storage (a limit raised on request)`);

  if (options.json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const out = [];
  out.push(`Capacity model: ${int(options.schools)} schools x ${int(options.students)} students, exam peak ${pct(options.peakShare)} of students, ${options.years} school year(s) of data`);
  out.push("");
  out.push("Inputs");
  out.push(`  D1 per database: ${gb(D1.maxBytes)}, one statement at a time; a shard keeps below ${pct(D1.headroom)} of both`);
  out.push(`  bench (c32): health ${BENCH.healthC32} req/s, /auth/me ${BENCH.authMeC32} req/s (one statement more) -> ${STATEMENT_MS.toFixed(2)} ms a statement`);
  out.push(`    -> ${int(STATEMENTS_PER_SECOND)} statements/s a database, budget ${int(SHARD_BUDGET)}/s a shard`);
  out.push(`  schema: ${schema.used.join(", ")}; rows fill pages to ${pct(PAGE_FILL)}`);
  out.push("  request class                                       reads writes rows-written trips  asserted by");
  for (const request of Object.values(REQUESTS)) {
    out.push(`    ${request.label.padEnd(50)}${String(request.reads).padStart(5)}${String(request.writes).padStart(7)}${String(request.rows).padStart(13)}${String(request.trips).padStart(6)}  ${request.asserted ? request.asserted.test : "-"}`);
  }
  out.push("");
  out.push("Storage");
  out.push(`  a student-year ${int(stored.studentYear)} bytes (${pct(stored.idShare)} of it UUID-text ids); a school's own rows ${gb(stored.school)}; a school after ${options.years} year(s) ${gb(stored.perSchool)}; all ${gb(stored.total)}`);
  for (const row of [...stored.perTable].filter((r) => r.scope === "student-year").sort((a, b) => b.bytes - a.bytes || a.table.localeCompare(b.table)).slice(0, 6)) {
    out.push(`    ${row.table.padEnd(34)}${row.scope.padEnd(14)}${int(row.rows).padStart(9)} rows x ${int(row.bytesPerRow).padStart(5)} B (${row.indexes} indexes) = ${int(row.bytes / 1e3).padStart(8)} KB`);
  }
  const scenario = (title, data, extra) => {
    out.push("");
    out.push(title);
    out.push(`  ${extra}`);
    out.push(`  write statements ${int(data.writes)}/s, read statements ${int(data.reads)}/s, rows written ${int(data.rowsWritten)}/s`);
    out.push(`  on the primaries: ${int(data.primaryWithReplicas)} statements/s with read replicas, ${int(data.primaryWithoutReplicas)}/s without`);
    out.push(`  shards: writes ${int(data.shards.writes)}, primary (replicas on) ${int(data.shards.primary)}, primary (no replicas) ${int(data.shards.noReplicas)}, size ${int(data.shards.size)} -> ${int(data.shards.binding)}`);
    out.push(`  one school: ${data.shards.perSchoolPrimary.toFixed(1)} statements/s on its primary (${pct(data.shards.perSchoolPrimary / SHARD_BUDGET)} of a shard's budget)`);
    out.push(`  dominant on the primary: ${data.dominantPrimary.map((d) => `${d.request} ${pct(d.share)}`).join("; ")}`);
    out.push(`  dominant writes: ${data.dominantWrites.map((d) => `${d.request} ${pct(d.share)}`).join("; ")}`);
  };
  scenario("(a) Exam peak", result.exam, `${int(exam.takers)} students; starts over ${options.startWindow} s, finishes over ${options.finishWindow} s, a save every ${options.saveEvery} s; busiest: the ${exam.worst} burst`);
  scenario("(b) School day, busiest hour", result.day, `${int(day.active)} active students (${pct(options.dayActiveShare)}), request mix per student-hour in scripts/capacity.mjs (DAY_MIX)`);
  out.push("");
  out.push("Result");
  out.push(`  shards by statements: exam peak ${int(Math.max(examShards.writes, examShards.primary))} (writes alone ${int(examShards.writes)}), school day ${int(Math.max(dayShards.writes, dayShards.primary))} (writes alone ${int(dayShards.writes)})`);
  out.push(`  shards by size: ${int(examShards.size)}; needed: ${int(binding)} for ${int(options.schools)} schools`);
  out.push(`  largest school one shard holds: ${int(largestSchool.bySize)} students by size (${options.years} year(s)), ${int(largestSchool.byExamPeak)} by the exam peak`);
  out.push(result.configure === null ? "  shards to configure: none reaches the target with school shards alone (see the warnings)" : `  shards to configure: ${int(binding)} (DB_SCHOOLS_0..DB_SCHOOLS_${binding - 1}), ${(options.schools / binding).toFixed(1)} schools a shard`);
  for (const warning of result.warnings) out.push(`  warning: ${warning}`);
  console.log(out.join("\n"));
}

main();
