/**
 * `npm run bench`: throughput and exact latency percentiles of a few endpoints against a local
 * `wrangler dev` that this script starts (own storage under .wrangler/bench-state) and always stops.
 *
 * Rounds alternate between endpoints (rotating the order every round), so machine noise such as
 * other builds on the host lands on every endpoint alike; req/s is compared with the first
 * endpoint (the no-I/O health route).
 *
 * Flags: --rounds N (default 5); --budget SECONDS for measuring (default 60, split between the
 * concurrency levels; rounds past it are skipped, and the table shows how many ran).
 */
import { createServer } from "node:net";
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { DEMO, DEMO_PASSWORD, seed } from "./seed.mjs";
import { applyMigrations, ensureDevVars, executeSql, runMain, spawnWrangler, CliError } from "./lib/project.mjs";
import { upsert } from "./lib/sql.mjs";

const HOST = "127.0.0.1";
const PERSIST_TO = ".wrangler/bench-state";

/** A bench-only course of 10 modules × 10 lessons × 5 blocks, with the demo student Sara enrolled. */
const BENCH_COURSE = { id: "01941f29-7c00-7000-8000-0000000bc000", shape: [10, 10, 5] };

/**
 * Bench-only untimed quizzes of one single-choice question each, reached by Sara through a course
 * of their own (the 10×10×5 course keeps its shape). The bench starts one attempt per quiz through
 * the API (a save goes to the attempt's journal object, which only a start creates) and each
 * concurrent client saves into its own attempt, as students do at an exam peak: every attempt has
 * its own object, so one attempt never takes 32 saves at once. A re-run gets the same attempts back.
 */
const benchId = (kind, n) => `01941f29-7c00-7000-8${kind}00-${n.toString(16).padStart(12, "0")}`;
const BENCH_QUIZ = {
  count: 32,
  quiz: (i) => benchId("5", i),
  question: (i) => benchId("6", i),
  answer: (i, n) => benchId("7", i * 2 + n),
  block: (i) => benchId("8", i),
  course: benchId("9", 1),
  module: benchId("9", 2),
  lesson: benchId("9", 3),
  enrollment: benchId("9", 4),
};

/**
 * What gets measured. `path` and `headers` may be functions of the signed-in sessions (`admin`,
 * `student`, and `attemptIds`, the student's attempts in progress at the bench quizzes) and of
 * the index of the concurrent client sending it;
 * add an endpoint by appending here. The first entry is the baseline of the "vs health" column.
 */
const as = (who) => (sessions) => ({ authorization: `Bearer ${sessions[who].token}`, "x-tenant-subdomain": DEMO.subdomain });
const ENDPOINTS = [
  { name: "GET /api/v1/health", method: "GET", path: "/api/v1/health" },
  { name: "GET /api/v1/auth/me", method: "GET", path: "/api/v1/auth/me", headers: as("admin") },
  { name: "GET /api/v1/t/users?limit=20&q=student", method: "GET", path: "/api/v1/t/users?limit=20&q=student", headers: as("admin") },
  { name: "GET /api/v1/t/courses?limit=20 (student)", method: "GET", path: "/api/v1/t/courses?limit=20", headers: as("student") },
  { name: "GET /api/v1/t/courses/:id/modules (10×10×5, student)", method: "GET", path: `/api/v1/t/courses/${BENCH_COURSE.id}/modules`, headers: as("student") },
  {
    name: "POST /api/v1/t/attempts/:id/answers (student)",
    method: "POST",
    path: (sessions, client) => `/api/v1/t/attempts/${sessions.attemptIds[client % BENCH_QUIZ.count]}/answers`,
    headers: (sessions) => ({ ...as("student")(sessions), "content-type": "application/json" }),
    body: (client) => {
      const i = client % BENCH_QUIZ.count;
      return { answers: [{ question_id: BENCH_QUIZ.question(i), payload: { answer_ids: [BENCH_QUIZ.answer(i, 0)] } }] };
    },
  },
];

/** The bench quizzes and the course that gives Sara access to them (fixed ids, so re-runs change nothing). */
function benchQuizSql(now) {
  const tenant = DEMO.tenantId;
  const q = BENCH_QUIZ;
  const sara = DEMO.students[0].id;
  const quizzes = Array.from({ length: q.count }, (_, i) => [
    upsert("quizzes", { id: q.quiz(i), tenant_id: tenant, title: `Bench quiz ${i + 1}`, description: "", max_attempts: null, time_limit_seconds: null, passing_score: null, retake_policy: "best", default_scoring_mode: "all_or_nothing", screenshot_protection_enabled: false, created_at: now, updated_at: now }),
    upsert("quiz_questions", { id: q.question(i), tenant_id: tenant, quiz_id: q.quiz(i), type: "single", prompt: "Pick A", position: 0, points_hundredths: 100, correct_text: "[]", created_at: now, updated_at: now }),
    ...[0, 1].map((n) => upsert("quiz_answers", { id: q.answer(i, n), tenant_id: tenant, quiz_id: q.quiz(i), question_id: q.question(i), text: n === 0 ? "A" : "B", is_correct: n === 0, position: n, created_at: now })),
    upsert("blocks", { id: q.block(i), tenant_id: tenant, course_id: q.course, module_id: q.module, lesson_id: q.lesson, type: "quiz_ref", payload: JSON.stringify({ quiz_id: q.quiz(i) }), ref_id: q.quiz(i), position: i, created_at: now, updated_at: now }),
  ]).flat();
  return `${[
    upsert("courses", { id: q.course, tenant_id: tenant, title: "Bench quizzes", slug: "bench-quizzes", description: "", status: "published", sequential_required: false, position: 98, created_at: now, updated_at: now }),
    upsert("course_modules", { id: q.module, tenant_id: tenant, course_id: q.course, title: "Module", description: "", position: 0, created_at: now, updated_at: now }),
    upsert("lessons", { id: q.lesson, tenant_id: tenant, course_id: q.course, module_id: q.module, title: "Lesson", position: 0, created_at: now, updated_at: now }),
    ...quizzes,
    upsert("enrollments", { id: q.enrollment, tenant_id: tenant, course_id: q.course, student_id: sara, enrolled_at: now, total_blocks: q.count, created_at: now, updated_at: now }, { key: ["course_id", "student_id"] }),
    upsert("enrollment_sources", { tenant_id: tenant, enrollment_id: q.enrollment, course_id: q.course, student_id: sara, kind: "direct", source_key: "direct", created_at: now }, { key: ["enrollment_id", "source_key"] }),
  ].join("\n")}\n`;
}

/** Sara's attempt at a bench quiz in progress (started now, or the one a previous run left). */
async function benchAttempt(baseUrl, student, quizId) {
  const res = await fetch(`${baseUrl}/api/v1/t/attempts`, {
    method: "POST",
    headers: { authorization: `Bearer ${student.token}`, "x-tenant-subdomain": DEMO.subdomain, "content-type": "application/json" },
    body: JSON.stringify({ quiz_id: quizId }),
  });
  const body = await res.json().catch(() => null);
  if ((res.status !== 201 && res.status !== 200) || body?.data?.status !== "in_progress") throw new Error(`bench attempt not started: ${res.status} ${JSON.stringify(body)}`);
  return body.data.id;
}

/** The bench course's rows, written once (fixed ids, so re-runs change nothing). */
function benchCourseSql(now) {
  const tenant = DEMO.tenantId;
  const course = BENCH_COURSE.id;
  const idAt = (kind, n) => `01941f29-7c00-7000-8${kind}00-${n.toString(16).padStart(12, "0")}`;
  const [modules, lessons, blocks] = BENCH_COURSE.shape;
  const statements = [
    upsert("courses", { id: course, tenant_id: tenant, title: "Bench course", slug: "bench-course", description: "", status: "published", sequential_required: false, position: 99, created_at: now, updated_at: now }),
  ];
  let blockNumber = 0;
  for (let m = 0; m < modules; m++) {
    const moduleId = idAt("1", m);
    statements.push(upsert("course_modules", { id: moduleId, tenant_id: tenant, course_id: course, title: `Module ${m + 1}`, description: "", position: m, created_at: now, updated_at: now }));
    for (let l = 0; l < lessons; l++) {
      const lessonId = idAt("2", m * lessons + l);
      statements.push(upsert("lessons", { id: lessonId, tenant_id: tenant, course_id: course, module_id: moduleId, title: `Lesson ${m + 1}.${l + 1}`, position: l, created_at: now, updated_at: now }));
      for (let b = 0; b < blocks; b++) {
        const payload = JSON.stringify({ html: `<p>Block ${++blockNumber}</p>` });
        statements.push(upsert("blocks", { id: idAt("3", blockNumber), tenant_id: tenant, course_id: course, module_id: moduleId, lesson_id: lessonId, type: "text", payload, position: b, created_at: now, updated_at: now }));
      }
    }
  }
  const enrollment = idAt("4", 1);
  const sara = DEMO.students[0].id;
  statements.push(
    upsert("enrollments", { id: enrollment, tenant_id: tenant, course_id: course, student_id: sara, enrolled_at: now, total_blocks: blockNumber, created_at: now, updated_at: now }, { key: ["course_id", "student_id"] }),
    upsert("enrollment_sources", { tenant_id: tenant, enrollment_id: enrollment, course_id: course, student_id: sara, kind: "direct", source_key: "direct", created_at: now }, { key: ["enrollment_id", "source_key"] }),
  );
  return `${statements.join("\n")}\n`;
}

/** Each round sends this many requests (or stops at the time cap), with this many in flight. */
const LEVELS = [
  { concurrency: 1, requests: 150 },
  { concurrency: 32, requests: 1200 },
];
const ROUND_TIME_CAP_MS = 3_000;
const WARMUP_REQUESTS = 64;
const READY_TIMEOUT_MS = 90_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `wrangler dev` in its own process group, so the whole tree (wrangler + workerd) can be stopped. */
function startWorker(port, inspectorPort) {
  const args = ["dev", "--ip", HOST, "--port", String(port), "--inspector-port", String(inspectorPort)];
  args.push("--log-level", "warn", "--persist-to", PERSIST_TO, "--show-interactive-dev-session=false");
  const child = spawnWrangler(args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let log = "";
  const keep = (chunk) => (log = (log + chunk).slice(-8_000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = false;
  const done = new Promise((resolve) => child.on("exit", () => resolve((exited = true))));
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  return {
    log: () => log,
    exited: () => exited,
    async stop() {
      if (exited) return;
      signalGroup("SIGTERM");
      const timer = setTimeout(() => signalGroup("SIGKILL"), 5_000);
      await done;
      clearTimeout(timer);
      signalGroup("SIGKILL"); // workerd may outlive wrangler for a moment.
    },
    killNow: () => signalGroup("SIGKILL"),
  };
}

async function waitUntilReady(baseUrl, worker) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (worker.exited()) throw new Error(`wrangler dev exited before it was ready:\n${worker.log()}`);
    try {
      const res = await fetch(`${baseUrl}/api/v1/health`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`wrangler dev did not answer /api/v1/health within ${READY_TIMEOUT_MS / 1000}s:\n${worker.log()}`);
}

async function signIn(baseUrl, email) {
  const res = await fetch(`${baseUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: DEMO_PASSWORD, subdomain: DEMO.subdomain, device_platform: "android", device_name: "bench", installation_id: `bench-${email}` }),
  });
  const body = await res.json().catch(() => null);
  if (res.status !== 200 || !body?.data?.token) throw new Error(`demo login of ${email} failed: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** Sends up to `requests` requests with `concurrency` in flight; returns every latency (ms) and the wall time. */
async function runRound(baseUrl, endpoint, session, { concurrency, requests, timeCapMs }) {
  // Per concurrent client: an endpoint may address each client's own resource (its own attempt).
  const requestFor = (client) => ({
    url: `${baseUrl}${typeof endpoint.path === "function" ? endpoint.path(session, client) : endpoint.path}`,
    init: {
      method: endpoint.method,
      headers: typeof endpoint.headers === "function" ? endpoint.headers(session) : (endpoint.headers ?? {}),
      body: endpoint.body === undefined ? undefined : JSON.stringify(typeof endpoint.body === "function" ? endpoint.body(client) : endpoint.body),
    },
  });
  const latencies = [];
  const failures = new Map();
  let issued = 0;
  const started = performance.now();
  const stopAt = started + timeCapMs;
  const worker = async (client) => {
    const { url, init } = requestFor(client);
    while (issued < requests && performance.now() < stopAt) {
      issued++;
      const t0 = performance.now();
      try {
        const res = await fetch(url, init);
        await res.arrayBuffer();
        if (res.ok) latencies.push(performance.now() - t0);
        else failures.set(res.status, (failures.get(res.status) ?? 0) + 1);
      } catch (err) {
        const key = err.cause?.code ?? err.name;
        failures.set(key, (failures.get(key) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, client) => worker(client)));
  return { latencies, failures, elapsedMs: performance.now() - started };
}

/** Nearest-rank percentile of an ascending list: the smallest sample with at least p of all samples at or below it. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

async function measure(baseUrl, session, { rounds, budgetMs }) {
  const results = [];
  for (const level of LEVELS) {
    // Each level gets an equal share of the budget and always at least one full round.
    const deadline = performance.now() + budgetMs / LEVELS.length;
    // Warm-up (discarded): JIT, connection pool, D1 page cache.
    const warmup = { ...level, requests: Math.max(WARMUP_REQUESTS, level.concurrency * 2), timeCapMs: 1_000 };
    for (const endpoint of ENDPOINTS) await runRound(baseUrl, endpoint, session, warmup);
    const stats = ENDPOINTS.map((endpoint) => ({ endpoint, level, latencies: [], elapsedMs: 0, failures: new Map(), rounds: 0 }));
    for (let round = 0; round < rounds; round++) {
      if (round > 0 && performance.now() > deadline) break;
      const order = stats.map((_, i) => stats[(i + round) % stats.length]);
      for (const entry of order) {
        const result = await runRound(baseUrl, entry.endpoint, session, { ...level, timeCapMs: ROUND_TIME_CAP_MS });
        entry.latencies.push(...result.latencies);
        entry.elapsedMs += result.elapsedMs;
        entry.rounds++;
        for (const [key, count] of result.failures) entry.failures.set(key, (entry.failures.get(key) ?? 0) + count);
      }
    }
    results.push(...stats);
  }
  return results;
}

function printTable(results) {
  const rows = results.map((entry) => {
    const sorted = Float64Array.from(entry.latencies).sort();
    const failed = [...entry.failures.values()].reduce((a, b) => a + b, 0);
    const reqPerSec = (entry.latencies.length + failed) / (entry.elapsedMs / 1000);
    return { entry, sorted, failed, reqPerSec };
  });
  const baseline = (concurrency) => rows.find((row) => row.entry.level.concurrency === concurrency && row.entry.endpoint === ENDPOINTS[0]);
  const header = ["endpoint", "conc", "rounds", "requests", "req/s", "p50 ms", "p99 ms", "vs health", "errors"];
  const lines = rows.map(({ entry, sorted, failed, reqPerSec }) => [
    entry.endpoint.name,
    String(entry.level.concurrency),
    String(entry.rounds),
    String(sorted.length + failed),
    reqPerSec.toFixed(0),
    percentile(sorted, 0.5).toFixed(2),
    percentile(sorted, 0.99).toFixed(2),
    `${(reqPerSec / baseline(entry.level.concurrency).reqPerSec).toFixed(2)}x`,
    failed === 0 ? "0" : [...entry.failures].map(([key, count]) => `${count}x${key}`).join(" "),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i].length)));
  const format = (cells) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
  console.log(format(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const line of lines) console.log(format(line));
  return rows.every((row) => row.failed === 0);
}

async function main() {
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" }, budget: { type: "string", default: "60" } } });
  const rounds = Number(values.rounds);
  const budgetMs = Number(values.budget) * 1000;
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100) throw new CliError("--rounds must be an integer from 1 to 100");
  if (!(budgetMs > 0) || budgetMs > 600_000) throw new CliError("--budget must be 1-600 seconds");

  ensureDevVars();
  const target = { remote: false, persistTo: PERSIST_TO };
  await applyMigrations(target);
  await seed(target);
  await executeSql(benchCourseSql(Date.now()), target);
  await executeSql(benchQuizSql(Date.now()), target);

  const [port, inspectorPort] = [await freePort(), await freePort()];
  const baseUrl = `http://${HOST}:${port}`;
  const worker = startWorker(port, inspectorPort);
  const onExit = () => worker.killNow();
  const onSignal = () => worker.stop().finally(() => process.exit(130));
  process.on("exit", onExit);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await waitUntilReady(baseUrl, worker);
    const session = { admin: await signIn(baseUrl, DEMO.admin.email), student: await signIn(baseUrl, DEMO.students[0].email) };
    session.attemptIds = await Promise.all(Array.from({ length: BENCH_QUIZ.count }, (_, i) => benchAttempt(baseUrl, session.student, BENCH_QUIZ.quiz(i))));
    console.log(
      `\nbench: ${baseUrl}, node ${process.version}, ${cpus().length} cores, ${rounds} rounds per level, ` +
        `round = ${LEVELS.map((l) => `${l.requests} req @ c${l.concurrency}`).join(" / ")} (cap ${ROUND_TIME_CAP_MS / 1000}s)\n`,
    );
    const started = performance.now();
    const allOk = printTable(await measure(baseUrl, session, { rounds, budgetMs }));
    console.log(`\nmeasured in ${((performance.now() - started) / 1000).toFixed(1)}s; p50/p99 are exact (nearest rank over every latency).`);
    if (!allOk) process.exitCode = 1;
  } finally {
    await worker.stop();
    process.off("exit", onExit);
  }
}

runMain(main);
