/// <reference types="vite/client" />
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";

/**
 * Every query of a school table carries the school's condition, written by the helpers of
 * src/core/db/conditions.ts (`inSchool`, `liveInSchool`), never by hand. The test reads every
 * source (Vite embeds them at build time: workerd has no file system) and the school tables from the
 * live schema (every table with a `tenant_id` column, in any D1 binding), and fails on:
 * - an sql`...` template (with the templates nested in it: one statement or fragment) that names a
 *   school table after FROM, JOIN, UPDATE or DELETE FROM, under an alias for which the same template
 *   writes no helper condition (a table without alias needs the helper's no-alias form or its name);
 * - a drizzle builder query (`.from(t)`, `.innerJoin(t, …)`, `.leftJoin(t, …)`, `update(t)`,
 *   `delete(t)`) of a school table in a top-level declaration (function or constant) that nowhere
 *   writes `inSchool(t, …)`, `liveInSchool(t, …)` or `liveRowWhere(t, …)`. The builder check is by
 *   declaration, not by query chain: a condition built in a helper of the same declaration counts,
 *   so it catches a forgotten condition in a new function but not a second query beside a good one.
 * SQL keywords are matched in upper case, as the code writes them; a table named by a computed
 * expression (`FROM ${sql.raw(table)}`) is not checked.
 */

const sources = import.meta.glob<string>(["../../src/**/*.ts", "../../durable-objects/**/*.ts", "../../queues/**/*.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
});

/** `../../src/core/http/route.ts` → `src/core/http/route.ts` */
const projectPath = (globKey: string) => globKey.replace(/^(\.\.\/)+/, "");

const HELPER_FILE = "src/core/db/conditions.ts";

/**
 * Real exceptions: the file, its tables (SQL names, or drizzle constants for builder queries) and
 * why. The list only shrinks: a table listed here that the file no longer queries without the
 * helper fails the test (delete it).
 */
const SCAN = "cross-school scan, to be walked per school";
const ACCOUNT = "an account, session, device or one-time token found by its id or secret before the school is known (sign-in, session check, password reset, e-mail verification); the superadmin's rows have no school (devices use ofSchool: tenant_id IS NULL or the school)";
const JOINED = "the row's school is fixed by a join or key on an alias of the same statement that carries the helper's condition (id, enrollment, attempt, dedupe key or campaign of that school)";
const DELIVERY = "delivery of queued mail and pushes by outbox row id, for rows of every school (the queue message will carry the school for forSchool)";
const ALLOWED: { file: string; tables: string[]; reason: string }[] = [
  { file: "src/content/schedule/assignment-scan.ts", tables: ["assignments", "blocks", "course_modules", "courses", "lessons", "scan_marks"], reason: SCAN },
  { file: "src/content/schedule/deadline-scan.ts", tables: ["scan_marks"], reason: SCAN },
  { file: "src/platform/devices/events-purge-job.ts", tables: ["device_events"], reason: SCAN },
  { file: "src/platform/notifications/sweep-job.ts", tables: ["notification_outbox"], reason: SCAN },
  { file: "src/platform/billing/expiry-service.ts", tables: ["notificationEventSettings"], reason: SCAN },
  { file: "src/platform/notifications/settings.ts", tables: ["notificationEventSettings"], reason: `${SCAN} (each school's event settings beside its tenants row)` },
  { file: "src/platform/auth/authenticate.ts", tables: ["curatorPermissions", "sessions", "users"], reason: ACCOUNT },
  { file: "src/platform/auth/last-active.ts", tables: ["users"], reason: ACCOUNT },
  { file: "src/platform/auth/login-service.ts", tables: ["users"], reason: ACCOUNT },
  { file: "src/platform/auth/password-reset-service.ts", tables: ["passwordResetCodes", "password_reset_codes"], reason: ACCOUNT },
  { file: "src/platform/auth/registration-service.ts", tables: ["emailVerificationTokens", "email_verification_tokens", "users"], reason: ACCOUNT },
  { file: "src/platform/devices/session-service.ts", tables: ["authDevices", "auth_devices", "sessions", "users"], reason: ACCOUNT },
  { file: "src/platform/devices/activity-service.ts", tables: ["auth_devices", "sessions"], reason: ACCOUNT },
  { file: "src/platform/devices/events.ts", tables: ["sessions"], reason: ACCOUNT },
  { file: "src/platform/devices/inventory-service.ts", tables: ["authDevices", "deviceEvents", "sessions"], reason: ACCOUNT },
  { file: "src/platform/devices/new-device-notification.ts", tables: ["auth_devices", "device_events", "sessions", "users"], reason: ACCOUNT },
  { file: "src/platform/devices/replacement-service.ts", tables: ["authDevices", "deviceReplacementTokens", "users"], reason: ACCOUNT },
  { file: "src/platform/devices/sign-in.ts", tables: ["authDevices", "deviceReplacementTokens", "device_replacement_tokens"], reason: ACCOUNT },
  { file: "src/platform/devices/sql.ts", tables: ["auth_devices", "sessions"], reason: ACCOUNT },
  { file: "src/platform/devices/targets.ts", tables: ["authDevices"], reason: ACCOUNT },
  { file: "src/platform/notifications/enqueue.ts", tables: ["auth_devices", "sessions"], reason: ACCOUNT },
  { file: "src/platform/media/download-service.ts", tables: ["mediaAssets"], reason: "a signed media link names the asset; its signature covers the school" },
  { file: "src/platform/billing/service.ts", tables: ["payments"], reason: "the superadmin's billing reads payments by id and per school row (payments move to the control database)" },
  { file: "src/platform/notifications/delivery.ts", tables: ["notificationDeliveries", "notificationOutbox", "notification_deliveries", "notification_outbox"], reason: DELIVERY },
  { file: "src/platform/email/dev-mailbox.ts", tables: ["emailOutbox"], reason: "development mailbox: every school's mail, never mounted in production" },
  { file: "src/platform/notifications/dev-pushbox.ts", tables: ["notificationDeliveries", "notificationOutbox", "pushDevices"], reason: "development push box: every school's pushes, never mounted in production" },
  { file: "src/content/attempts/finalize.ts", tables: ["quizzes"], reason: JOINED },
  { file: "src/content/attempts/grading-service.ts", tables: ["quiz_attempt_answers"], reason: JOINED },
  { file: "src/content/common/locks.ts", tables: ["course_modules", "lessons"], reason: JOINED },
  { file: "src/content/courses/course-read.ts", tables: ["course_modules", "courses"], reason: `${JOINED}; the builder's condition comes from the caller` },
  { file: "src/content/courses/lesson-content.ts", tables: ["course_modules", "courses", "lessons"], reason: JOINED },
  { file: "src/content/enrollments/enroll-service.ts", tables: ["enrollment_sources"], reason: JOINED },
  { file: "src/content/enrollments/progress-scan.ts", tables: ["notification_outbox"], reason: JOINED },
  { file: "src/content/enrollments/sources.ts", tables: ["enrollment_sources"], reason: JOINED },
  { file: "src/content/enrollments/student-ids.ts", tables: ["users"], reason: "tells apart another school's account from no account (o.tenant_id <> the school)" },
  { file: "src/content/groups/course-group-read.ts", tables: ["enrollment_sources"], reason: JOINED },
  { file: "src/content/rating/student-service.ts", tables: ["users"], reason: JOINED },
  { file: "src/content/schedule/deadline-scan-sql.ts", tables: ["notification_outbox"], reason: JOINED },
  { file: "src/content/schedule/window-service.ts", tables: ["schedule_windows"], reason: JOINED },
  { file: "src/platform/notifications/audience-service.ts", tables: ["users"], reason: JOINED },
  { file: "src/platform/notifications/campaign-fanout.ts", tables: ["notification_campaign_recipients", "notification_outbox"], reason: JOINED },
  { file: "src/platform/notifications/campaign-progress.ts", tables: ["notification_outbox"], reason: JOINED },
  { file: "src/platform/notifications/recipients.ts", tables: ["users"], reason: JOINED },
  { file: "src/platform/users/read.ts", tables: ["individualCurator"], reason: JOINED },
];

interface Unit {
  /** The source text of the outermost sql template, nested expressions and templates included. */
  text: string;
  start: number;
  line: number;
}

interface Scanned {
  /** Outermost sql`...` templates. */
  units: Unit[];
  /** The source with comments, strings and template text blanked out (same offsets). */
  code: string;
}

/** A small scanner, not a parser: comments, strings, regex literals and (nested) template literals. */
function scan(src: string): Scanned {
  const code = src.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (code[k] !== "\n") code[k] = " ";
  };
  const units: Unit[] = [];
  // Open templates: the brace depth at which each `${` returns to template text, and the outermost sql unit start.
  const stack: { braceDepth: number }[] = [];
  let unitStart = -1;
  let braceDepth = 0;
  let last = "";
  let lastWord = "";
  const regexAfter = new Set(["", "(", ",", "=", ":", "[", "!", "&", "|", "?", "{", "}", ";", "+", "-", "*", "%", "<", ">", "~", "^"]);
  const lineOf = (pos: number) => src.slice(0, pos).split("\n").length;
  /** Reads template text from `start`; returns where code resumes and whether the template closed. */
  const templateText = (start: number): { end: number; closed: boolean } => {
    let j = start;
    while (j < src.length) {
      if (src[j] === "\\") j += 2;
      else if (src[j] === "`") return blank(start, j + 1), { end: j + 1, closed: true };
      else if (src[j] === "$" && src[j + 1] === "{") return blank(start, j + 2), { end: j + 2, closed: false };
      else j++;
    }
    return { end: j, closed: true };
  };
  const closeTemplate = (end: number) => {
    if (stack.length === 0 && unitStart >= 0) {
      units.push({ text: src.slice(unitStart, end), start: unitStart, line: lineOf(unitStart) });
      unitStart = -1;
    }
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "/" && src[i + 1] === "/") {
      const e = src.indexOf("\n", i);
      const end = e < 0 ? src.length : e;
      blank(i, end);
      i = end;
      continue;
    }
    if (c === "/" && src[i + 1] === "*") {
      const e = src.indexOf("*/", i + 2);
      const end = e < 0 ? src.length : e + 2;
      blank(i, end);
      i = end;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== "\n") j += src[j] === "\\" ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      last = "a";
      continue;
    }
    if (c === "/" && (regexAfter.has(last) || ["return", "typeof", "case"].includes(lastWord))) {
      let j = i + 1;
      let inClass = false;
      while (j < src.length && src[j] !== "\n") {
        if (src[j] === "\\") {
          j += 2;
          continue;
        }
        if (src[j] === "[") inClass = true;
        else if (src[j] === "]") inClass = false;
        else if (src[j] === "/" && !inClass) break;
        j++;
      }
      while (/[a-z]/.test(src[j + 1] ?? "")) j++;
      blank(i, j + 1);
      i = j + 1;
      last = "a";
      continue;
    }
    if (c === "`") {
      const isSql = /\bsql\s*(<[^<>`]*>)?\s*$/.test(src.slice(Math.max(0, i - 60), i));
      if (stack.length === 0 && unitStart < 0 && isSql) unitStart = i;
      const r = templateText(i + 1);
      if (r.closed) closeTemplate(r.end);
      else stack.push({ braceDepth });
      i = r.end;
      last = "a";
      continue;
    }
    if (c === "{") braceDepth++;
    if (c === "}") {
      const top = stack[stack.length - 1];
      if (top && top.braceDepth === braceDepth) {
        const r = templateText(i + 1);
        if (r.closed) {
          stack.pop();
          closeTemplate(r.end);
        }
        i = r.end;
        last = "a";
        continue;
      }
      braceDepth--;
    }
    if (!/\s/.test(c)) {
      if (/[\w$]/.test(c)) {
        const word = /^[\w$]+/.exec(src.slice(i, i + 80))![0];
        lastWord = word;
        last = "a";
        i += word.length;
        continue;
      }
      last = c;
      lastWord = "";
    }
    i++;
  }
  return { units, code: code.join("") };
}

/** The arguments of the call whose `(` ends at `open`, split at top-level commas. */
function callArguments(text: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open;
  for (let j = open; j < text.length; j++) {
    const c = text[j]!;
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      if (depth === 0) {
        args.push(text.slice(start, j).trim());
        return args;
      }
      depth--;
    } else if (c === "," && depth === 0) {
      args.push(text.slice(start, j).trim());
      start = j + 1;
    }
  }
  return args;
}

/** The alias an argument names: `"u"` and sql`u` → `u`, a variable `u` → `${u}`. */
function aliasKey(argument: string): string {
  const literal = /^(?:"([a-z_][a-z0-9_]*)"|sql`([a-z_][a-z0-9_]*)`)$/.exec(argument);
  return literal ? (literal[1] ?? literal[2])! : `\${${argument}}`;
}

/**
 * A function or fragment that writes a tenant condition through the helpers: the aliases it names
 * itself (`inSchool("a", …)` inside `assignmentVisibleSql(ctx)`) and the parameters whose alias it
 * scopes (`courseVisibleSql(ctx, course)` writes `liveInSchool(course, …)`).
 */
interface Writer {
  keys: string[];
  params: number[];
  /** The alias a scoped parameter names when the call leaves it out (`u: SQL = sql\`u\``). */
  defaults?: Record<number, string>;
}

/** The aliases `text` writes a helper condition for, directly or through a known writer; no alias → "". */
function conditionKeys(text: string, writers: Map<string, Writer>, fragments: Map<string, Writer>): string[] {
  const keys: string[] = [];
  for (const m of text.matchAll(/\b(?:inSchool|liveInSchool|sameSchool)\(/g)) {
    const args = callArguments(text, m.index + m[0].length);
    keys.push(args.length === 1 ? "" : aliasKey(args[0]!));
  }
  for (const m of text.matchAll(/(?<![\w$.])(\w+)\(/g)) {
    const writer = writers.get(m[1]!);
    if (!writer) continue;
    const args = callArguments(text, m.index + m[0].length);
    keys.push(...writer.keys);
    for (const index of writer.params) {
      if (index < args.length && args[index] !== "") keys.push(aliasKey(args[index]!));
      else if (writer.defaults?.[index] !== undefined) keys.push(writer.defaults[index]!);
    }
  }
  for (const m of text.matchAll(/\$\{(\w+)\}/g)) keys.push(...(fragments.get(m[1]!)?.keys ?? []));
  return keys;
}

/** Where the statement that starts at `from` ends: the first `;` outside brackets and templates. */
function statementEnd(source: string, from: number): number {
  let depth = 0;
  let template = 0;
  for (let j = from; j < source.length; j++) {
    const c = source[j]!;
    if (c === "`") template ^= 1;
    else if (template) continue;
    else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) {
      if (depth === 0) return j;
      depth--;
    } else if (c === ";" && depth === 0) return j;
  }
  return source.length;
}

/** The parameter names of the list that starts after `open` (type arguments `<a, b>` do not split it). */
function parameterNames(source: string, open: number): string[] {
  const parameters: string[] = [];
  let depth = 0;
  let start = open;
  for (let j = open; j < source.length; j++) {
    const c = source[j]!;
    if ("([{<".includes(c)) depth++;
    else if (")]}".includes(c) || (c === ">" && source[j - 1] !== "=")) {
      if (depth === 0) {
        parameters.push(source.slice(start, j));
        break;
      }
      depth--;
    } else if (c === "," && depth === 0) {
      parameters.push(source.slice(start, j));
      start = j + 1;
    }
  }
  return parameters;
}

const parameterName = (parameter: string) => /^\s*(?:\.\.\.)?(\w+)/.exec(parameter)?.[1] ?? "";

/**
 * Functions (any file) and sql fragments bound to a name (per file) that write tenant conditions.
 * A function's body runs to the next top-level declaration: an over-reach for nested functions.
 */
function collectWriters(files: { file: string; source: string; units: Unit[] }[]): { writers: Map<string, Writer>; fragments: Map<string, Map<string, Writer>> } {
  const writers = new Map<string, Writer>();
  const fragments = new Map<string, Map<string, Writer>>();
  for (let pass = 0; pass < 3; pass++) {
    for (const { file, source, units } of files) {
      const local = fragments.get(file) ?? new Map<string, Writer>();
      fragments.set(file, local);
      // Named fragments: `const where = sql\`…\``, `const filters = [inSchool("p", t)]`, `scope: sql\`…\``.
      for (const unit of units) {
        const name = /(\w+):\s*$/.exec(source.slice(Math.max(0, unit.start - 80), unit.start).replace(/sql\s*(<[^<>]*>)?$/, ""));
        const keys = name ? conditionKeys(unit.text, writers, local) : [];
        if (keys.length > 0) local.set(name![1]!, { keys: [...new Set(keys)], params: [] });
      }
      for (const m of source.matchAll(/\b(?:const|let)\s+(\w+)\s*(?::[^=;]+)?=(?!>)/g)) {
        const initializer = source.slice(m.index + m[0].length, statementEnd(source, m.index + m[0].length));
        const keys = conditionKeys(initializer, writers, local);
        for (const use of initializer.matchAll(/(?<![\w$.])(\w+)(?![\w$(])/g)) keys.push(...(local.get(use[1]!)?.keys ?? []));
        if (keys.length > 0) local.set(m[1]!, { keys: [...new Set(keys)], params: [] });
      }
      const starts = [...source.matchAll(/^\S/gm)].map((m) => m.index);
      const definitions = /(?:function\s+(\w+)\s*(?:<[^>(]*>)?\(|(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?\()/g;
      for (const m of source.matchAll(definitions)) {
        const open = m.index + m[0].length;
        const declared = parameterNames(source, open);
        const params = declared.map(parameterName);
        const end = starts.find((start) => start > m.index) ?? source.length;
        const body = source.slice(open, end);
        if (m[2] && !/^[^]*?\)\s*(?::[^=]*?)?=>/.test(body.slice(0, 400))) continue; // not an arrow function
        const keys = conditionKeys(body, writers, local);
        const scoped = params.flatMap((param, index) => (param && keys.includes(`\${${param}}`) ? [index] : []));
        const own = [...new Set(keys.filter((key) => key !== "" && !params.some((param) => key === `\${${param}}`)))];
        const defaults: Record<number, string> = {};
        for (const index of scoped) {
          const fallback = /=\s*(sql`[a-z_][a-z0-9_]*`|"[a-z_][a-z0-9_]*")\s*$/.exec(declared[index]!);
          if (fallback) defaults[index] = aliasKey(fallback[1]!);
        }
        if (scoped.length > 0 || own.length > 0) writers.set((m[1] ?? m[2])!, { keys: own, params: scoped, defaults });
      }
    }
  }
  return { writers, fragments };
}

const NOT_ALIASES = new Set(
  "SET WHERE ON JOIN LEFT INNER CROSS OUTER NATURAL GROUP ORDER LIMIT USING UNION EXCEPT INTERSECT WINDOW HAVING VALUES RETURNING DO AND OR INDEXED NOT".split(" "),
);

interface Finding {
  file: string;
  line: number;
  table: string;
  message: string;
}

/** sql templates: each school table after FROM / JOIN / UPDATE / DELETE FROM needs a helper condition on its alias. */
function sqlFindings(file: string, units: Unit[], schoolTables: Set<string>, tableOfConst: Map<string, string>, writers: Map<string, Writer>, fragments: Map<string, Writer>): Finding[] {
  const findings: Finding[] = [];
  for (const unit of units) {
    const needed = new Map<string, { table: string; count: number }>();
    const reference = /\b(?:FROM|JOIN|UPDATE)\s+(?:([a-z_][a-z0-9_]*)|\$\{(\w+)\})(?:\s+(?:AS\s+)?(?:([a-z_][a-z0-9_]*|[A-Z]+)|\$\{(\w+)\}))?/g;
    for (const m of unit.text.matchAll(reference)) {
      const table = m[1] ?? tableOfConst.get(m[2]!);
      if (!table || !schoolTables.has(table)) continue;
      const alias = m[3] !== undefined && !NOT_ALIASES.has(m[3]) && /^[a-z_]/.test(m[3]) ? m[3] : m[4] !== undefined ? `\${${m[4]}}` : m[2] ? `\${${m[2]}}` : "";
      const key = `${alias}\u0000${table}`;
      const entry = needed.get(key) ?? { table, count: 0 };
      entry.count++;
      needed.set(key, entry);
    }
    if (needed.size === 0) continue;
    const written = new Map<string, number>();
    for (const key of conditionKeys(unit.text, writers, fragments)) written.set(key, (written.get(key) ?? 0) + 1);
    for (const [key, { table, count }] of needed) {
      const alias = key.split("\u0000")[0]!;
      // A table without alias is also named by its own name.
      const have = (written.get(alias) ?? 0) + (alias === "" ? (written.get(table) ?? 0) : 0);
      if (have >= count) continue;
      const shown = alias === "" ? table : `${table} ${alias}`;
      const snippet = unit.text.replaceAll(/\s+/g, " ").slice(0, 160);
      findings.push({ file, line: unit.line, table, message: `${file}:${unit.line}: ${shown} without inSchool/liveInSchool (${have} of ${count}) in sql${snippet}…` });
    }
  }
  return findings;
}

/** Builder queries: a school table's query needs a helper condition naming it in the same top-level declaration. */
const BUILDER_CONDITION = /\b(?:inSchool|liveInSchool|liveRowWhere)\(\s*(\w+)\s*,|\bliveRow\(\s*\w+\s*,\s*(\w+)\s*,/g;

/** Functions (any file) whose body writes a builder condition, with the table constants it names. */
function builderWriters(files: { code: string }[]): Map<string, Set<string>> {
  const writers = new Map<string, Set<string>>();
  for (const { code } of files) {
    const starts = [...code.matchAll(/^\S/gm)].map((m) => m.index);
    for (const m of code.matchAll(/(?:function\s+(\w+)\s*(?:<[^>(]*>)?\(|(?:const|let)\s+(\w+)\s*=\s*(?:async\s*)?\()/g)) {
      const end = starts.find((start) => start > m.index) ?? code.length;
      const tables = new Set([...code.slice(m.index, end).matchAll(BUILDER_CONDITION)].map((c) => (c[1] ?? c[2])!));
      if (tables.size > 0) writers.set((m[1] ?? m[2])!, tables);
    }
  }
  return writers;
}

function builderFindings(file: string, code: string, tableOfConst: Map<string, string>, schoolTables: Set<string>, writers: Map<string, Set<string>>): Finding[] {
  const findings: Finding[] = [];
  const schoolConsts = new Map([...tableOfConst].filter(([, table]) => schoolTables.has(table)));
  for (const m of code.matchAll(/^const (\w+)\s*=\s*alias\(\s*(\w+)\s*,/gm)) {
    const table = schoolConsts.get(m[2]!);
    if (table) schoolConsts.set(m[1]!, table);
  }
  // Top-level declarations start in column 0 (the code is prettier-formatted).
  const starts = [...code.matchAll(/^(?:export |const |let |function |async function )/gm)].map((m) => m.index);
  starts.push(code.length);
  for (let d = 0; d < starts.length - 1; d++) {
    const declaration = code.slice(starts[d], starts[d + 1]);
    for (const m of declaration.matchAll(/(?:\.(?:from|innerJoin|leftJoin|rightJoin|fullJoin)|\b(?:update|delete))\(\s*(\w+)\s*[,)]/g)) {
      const name = m[1]!;
      const table = schoolConsts.get(name);
      if (!table) continue;
      const written = new Set([...declaration.matchAll(BUILDER_CONDITION)].map((c) => (c[1] ?? c[2])!));
      for (const call of declaration.matchAll(/(?<![\w$.])(\w+)\(/g)) for (const table of writers.get(call[1]!) ?? []) written.add(table);
      if (written.has(name)) continue;
      const line = code.slice(0, starts[d]! + m.index).split("\n").length;
      findings.push({ file, line, table: name, message: `${file}:${line}: ${m[0].replaceAll(/\s+/g, "")} without inSchool(${name}, …) in its declaration` });
    }
  }
  return findings;
}

function drizzleTables(): Map<string, string> {
  const tables = new Map<string, string>();
  for (const [key, source] of Object.entries(sources)) {
    if (!projectPath(key).startsWith("src/db/schema/")) continue;
    for (const m of source.matchAll(/export const (\w+)\s*=\s*sqliteTable\(\s*"(\w+)"/g)) tables.set(m[1]!, m[2]!);
  }
  return tables;
}

/** Tables with a tenant_id column in any D1 database of the Worker. */
async function liveSchoolTables(): Promise<Set<string>> {
  const found = new Set<string>();
  // DB and, once the data moves to school shards, DB_SCHOOLS_0 … DB_SCHOOLS_{N-1}.
  for (const [name, binding] of Object.entries(env as unknown as Record<string, unknown>)) {
    if (!/^DB(_|$)/.test(name)) continue;
    const db = binding as D1Database;
    const { results: tables } = await db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
      .all<{ name: string }>();
    const columns = await db.batch<{ name: string }>(tables.map((table) => db.prepare(`PRAGMA table_info("${table.name}")`)));
    tables.forEach((table, index) => {
      if (columns[index]!.results.some((column) => column.name === "tenant_id")) found.add(table.name);
    });
  }
  return found;
}

function findings(files: Record<string, string>, schoolTables: Set<string>): Finding[] {
  const tableOfConst = drizzleTables();
  const scanned = Object.entries(files)
    .map(([key, source]) => ({ file: projectPath(key), source, ...scan(source) }))
    .filter(({ file }) => file !== HELPER_FILE && !file.startsWith("src/db/schema/"));
  const { writers, fragments } = collectWriters(scanned);
  const builders = builderWriters(scanned);
  const found: Finding[] = [];
  for (const { file, units, code } of scanned) {
    found.push(
      ...sqlFindings(file, units, schoolTables, tableOfConst, writers, fragments.get(file)!),
      ...builderFindings(file, code, tableOfConst, schoolTables, builders),
    );
  }
  return found;
}

let sourceFindings: Promise<Finding[]> | undefined;
/** The findings of the real sources, computed once for the tests below. */
const projectFindings = () => (sourceFindings ??= liveSchoolTables().then((tables) => findings(sources, tables)));

const allowed = (finding: Finding) => ALLOWED.some((entry) => entry.file === finding.file && entry.tables.includes(finding.table));

describe("tenant conditions are written by the helpers", () => {
  it("reads the school tables from the live schema", async () => {
    const tables = await liveSchoolTables();
    expect(tables.has("users") && tables.has("courses") && tables.has("point_events")).toBe(true);
    expect(tables.has("tenants")).toBe(false);
  });

  it("every query of a school table writes its tenant condition through inSchool / liveInSchool", async () => {
    const found = await projectFindings();
    expect(found.filter((finding) => !allowed(finding)).map((finding) => finding.message)).toEqual([]);
  });

  it("lists only exceptions that still exist", async () => {
    const found = await projectFindings();
    const unused = ALLOWED.flatMap((entry) => entry.tables.filter((table) => !found.some((finding) => finding.file === entry.file && finding.table === table)).map((table) => `${entry.file}: ${table}`));
    expect(unused).toEqual([]);
  });

  it("flags a hand-written or missing condition and accepts the helper's", () => {
    const school = new Set(["users", "groups"]);
    const file = (body: string) => ({ "../../src/x.ts": body });
    const messages = (body: string) => findings(file(body), school).map((finding) => finding.message.replace(/ in sql.*$/, ""));
    expect(messages("const a = sql`SELECT id FROM users WHERE id = ${id}`;")).toEqual(["src/x.ts:1: users without inSchool/liveInSchool (0 of 1)"]);
    expect(messages("const a = sql`SELECT u.id FROM users u WHERE u.tenant_id = ${t}`;")).toEqual(["src/x.ts:1: users u without inSchool/liveInSchool (0 of 1)"]);
    expect(messages("const a = sql`SELECT u.id FROM users u JOIN groups g ON g.id = u.id WHERE ${inSchool(\"u\", t)}`;")).toEqual([
      "src/x.ts:1: groups g without inSchool/liveInSchool (0 of 1)",
    ]);
    expect(messages("const a = sql`SELECT u.id FROM users u JOIN groups ${g} ON ${liveInSchool(g, t)} WHERE ${inSchool(sql`u`, t)}`;")).toEqual([]);
    expect(messages("const a = sql`UPDATE users SET x = 1 WHERE ${inSchool(t)}`;")).toEqual([]);
    expect(messages("const a = sql`SELECT 1 FROM tenants WHERE id = ${t}`;")).toEqual([]);
    expect(messages("export async function f() {\n  return db.select().from(users).where(eq(users.id, id));\n}\n")).toEqual([
      "src/x.ts:2: .from(users) without inSchool(users, …) in its declaration",
    ]);
    expect(messages("export async function f() {\n  return db.select().from(users).where(inSchool(users, t));\n}\n")).toEqual([]);
  });
});
