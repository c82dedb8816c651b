/**
 * The step helper every tour uses: one call per request, printed as `→ METHOD path` with its body
 * and `← status` with a trimmed JSON answer, failing the tour on a status it did not expect.
 * Tours talk HTTP only (Node's fetch), so they run against any server `--base` names.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEMO, DEMO_PASSWORD, TRIAL } from "../../seed/demo.mjs";

/** A failure whose message says which step failed and what came back; tour.mjs prints it and exits 1. */
export class TourFailure extends Error {}

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint("1");
const dim = paint("2");
const green = paint("32");
const cyan = paint("36");
const red = paint("31");

/** The demo people by role name, as the seed names them (student1…4 are Sara, Timur, Lola, Omar). */
const [student1, student2, student3, student4] = DEMO.students;
export const PEOPLE = {
  admin: DEMO.admin,
  curator: DEMO.curator,
  restrictedCurator: DEMO.restrictedCurator,
  student1,
  student2,
  student3,
  student4,
  trialAdmin: TRIAL.admin,
};

/** "Sara (student1@demo.test)": the name the tours say, with the login it maps to. */
export function label(person) {
  return `${person.firstName} (${person.email})`;
}

/** "Sara's (student1@demo.test)" for a heading that names what is hers. */
export function labelOf(person) {
  return `${person.firstName}'s (${person.email})`;
}

export class Tour {
  /** @param {{ base: string, persistTo?: string }} options  base is the server's origin, e.g. http://localhost:8787 */
  constructor({ base, persistTo }) {
    this.origin = base.replace(/\/+$/, "");
    this.api = `${this.origin}/api/v1`;
    this.persistTo = persistTo;
    // Unique per run, so names and slugs a tour creates never collide with the previous run's.
    this.runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36).padStart(2, "0")}`;
    this.stepCount = 0;
    this.tempDirs = [];
    /** The headers of the last printed answer (for a step whose body is not JSON). */
    this.lastHeaders = new Headers();
  }

  /** A section heading: what the next steps show. */
  section(text) {
    console.log(`\n${bold(`# ${text}`)}`);
  }

  /** A remark between steps (what the previous answer means). */
  note(text) {
    console.log(dim(`  ${text}`));
  }

  /** A temporary directory of this run, removed when the tour ends (passing or failing). */
  async tempDir() {
    const dir = await mkdtemp(path.join(tmpdir(), "lms-tour-"));
    this.tempDirs.push(dir);
    return dir;
  }

  async cleanup() {
    await Promise.all(this.tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }

  /**
   * Signs a person in as a native client (no Origin header, so the refresh token comes in the JSON)
   * and returns the session the `who` of later steps takes.
   */
  async login(person, { subdomain = subdomainOf(person), password = DEMO_PASSWORD, extra = {}, title } = {}) {
    const body = { email: person.email, password, subdomain, ...extra };
    const answer = await this.step(title ?? `Sign in as ${label(person)}`, {
      method: "POST",
      path: "/auth/login",
      body,
      show: (json) => ({ user: pick(json.data?.user, ["email", "first_name", "role"]), session_id: json.data?.session_id }),
    });
    return this.session(person, answer.data.token, subdomain, answer);
  }

  /** A session from a token obtained some other way (a refresh, a device replacement). */
  session(person, token, subdomain = subdomainOf(person), login = null) {
    return { person, token, subdomain, login, name: person.firstName ?? person.email };
  }

  /**
   * One request. `who` is a session (adds the bearer token and the school header), `body` JSON,
   * `form` a multipart form ({ field: string | { file, type, filename } }), `expect` the status or
   * statuses that count as success (200 unless told), `show` picks what to print of the JSON answer.
   * Returns the parsed JSON (or the text of any other answer) with the status and headers beside it.
   */
  async step(title, { method = "GET", path: route, who, body, rawBody, form, headers = {}, expect = 200, show, absolute = false, quiet = false } = {}) {
    const log = quiet ? () => {} : console.log;
    if (!quiet) this.stepCount += 1;
    const url = /^https?:\/\//.test(route) ? route : absolute ? `${this.origin}${route}` : `${this.api}${route}`;
    const requestHeaders = { ...headers };
    if (who) {
      requestHeaders.authorization = `Bearer ${who.token}`;
      if (who.subdomain) requestHeaders["x-tenant-subdomain"] = who.subdomain;
    }
    let requestBody;
    if (form) {
      requestBody = await this.#formData(form);
    } else if (rawBody !== undefined) {
      // A body that is not JSON (a CSV upload): sent as written, with the content type from `headers`.
      requestBody = rawBody;
    } else if (body !== undefined) {
      requestHeaders["content-type"] = "application/json";
      requestBody = JSON.stringify(body);
    }

    log(`\n${cyan(`${this.stepCount}. ${title}`)}`);
    log(`→ ${method} ${absolute ? route : `/api/v1${route}`}${who ? dim(`  as ${who.name}`) : ""}`);
    if (form) log(indent(trimmedJson(describeForm(form))));
    if (rawBody !== undefined) log(indent(rawBody.trimEnd()));
    else if (body !== undefined) log(indent(trimmedJson(body)));

    let response;
    try {
      response = await fetch(url, { method, headers: requestHeaders, body: requestBody, redirect: "manual" });
    } catch (err) {
      throw new TourFailure(`cannot reach ${this.origin} (${err.cause?.code ?? err.cause?.errors?.[0]?.code ?? err.cause?.message ?? err.message}). Is \`npm run dev\` running? Pass --base URL otherwise.`);
    }
    // Decoded by hand: response.text() would drop a CSV export's byte-order mark.
    const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(await response.arrayBuffer());
    const type = response.headers.get("content-type") ?? "";
    let parsed = text;
    if (type.includes("json")) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!quiet) this.lastHeaders = response.headers;
    const expected = [expect].flat();
    const okStatus = expected.includes(response.status);
    log(`← ${(okStatus ? green : red)(String(response.status))}`);
    const shown = typeof parsed === "string" ? parsed : show && okStatus ? show(parsed) : withoutEnvelope(parsed);
    if (shown !== undefined && shown !== "") log(indent(typeof shown === "string" ? trimText(shown) : trimmedJson(shown)));
    if (!okStatus) {
      throw new TourFailure(
        `step ${this.stepCount} "${title}": ${method} ${route} answered ${response.status}, expected ${expected.join(" or ")}\n${indent(
          typeof parsed === "string" ? trimText(parsed) : trimmedJson(parsed),
        )}`,
      );
    }
    if (parsed !== null && typeof parsed === "object") {
      Object.defineProperty(parsed, "status", { value: response.status, enumerable: false });
      Object.defineProperty(parsed, "headers", { value: response.headers, enumerable: false });
    }
    return parsed;
  }

  /** Fails the tour unless `condition` holds: for the few facts a tour promises beyond a status. */
  check(condition, message) {
    if (!condition) throw new TourFailure(`step ${this.stepCount}: ${message}`);
    console.log(dim(`  ✓ ${message}`));
  }

  /**
   * Repeats a request until `until(answer)` holds (work a queue finishes a moment later), at most
   * `attempts` times half a second apart, and prints the answer that satisfied it.
   */
  async poll(title, request, until, { attempts = 30 } = {}) {
    for (let i = 1; i <= attempts; i++) {
      const answer = await this.step(title, { ...request, quiet: true });
      if (until(answer)) return this.step(title, request);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new TourFailure(`"${title}": still not there after ${attempts} tries`);
  }

  async #formData(form) {
    const data = new FormData();
    for (const [key, value] of Object.entries(form)) {
      if (value && typeof value === "object") {
        const bytes = await readFile(value.file);
        data.append(key, new Blob([bytes], { type: value.type ?? "application/octet-stream" }), value.filename ?? path.basename(value.file));
      } else {
        data.append(key, String(value));
      }
    }
    return data;
  }
}

/** An answer without the fields every answer has (success, request_id), which say nothing in a tour; a lone `data` unwrapped. */
function withoutEnvelope(json) {
  if (!json || typeof json !== "object" || Array.isArray(json)) return json;
  const { success, request_id, ...rest } = json;
  const keys = Object.keys(rest);
  return keys.length === 1 && keys[0] === "data" ? rest.data : rest;
}

function subdomainOf(person) {
  if (person === TRIAL.admin) return TRIAL.subdomain;
  return person.email?.endsWith("@demo.test") ? DEMO.subdomain : "";
}

export function pick(object, keys) {
  if (!object) return object;
  return Object.fromEntries(keys.filter((key) => key in object).map((key) => [key, object[key]]));
}

function describeForm(form) {
  return Object.fromEntries(
    Object.entries(form).map(([key, value]) => [key, value && typeof value === "object" ? `@${value.filename ?? path.basename(value.file)} (${value.type})` : value]),
  );
}

const MAX_ITEMS = 6;
const MAX_STRING = 90;
const MAX_LINES = 30;

/** JSON, shortened for reading: long arrays and strings cut, small objects on one line, at most MAX_LINES lines. */
export function trimmedJson(value) {
  const lines = render(shorten(value), "").split("\n");
  if (lines.length <= MAX_LINES) return lines.join("\n");
  return [...lines.slice(0, MAX_LINES), `… (${lines.length - MAX_LINES} more lines)`].join("\n");
}

function shorten(value, depth = 0) {
  if (typeof value === "string") return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => shorten(item, depth + 1));
    return value.length > MAX_ITEMS ? [...items, `… ${value.length - MAX_ITEMS} more`] : items;
  }
  if (value && typeof value === "object") {
    if (depth > 4) return "{…}";
    return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined).map(([key, item]) => [key, shorten(item, depth + 1)]));
  }
  return value;
}

function render(value, pad) {
  const flat = JSON.stringify(value);
  if (flat === undefined) return String(value);
  if (flat.length + pad.length <= 110 || value === null || typeof value !== "object") return flat;
  const inner = `${pad}  `;
  if (Array.isArray(value)) return `[\n${value.map((item) => inner + render(item, inner)).join(",\n")}\n${pad}]`;
  return `{\n${Object.entries(value)
    .map(([key, item]) => `${inner}${JSON.stringify(key)}: ${render(item, inner)}`)
    .join(",\n")}\n${pad}}`;
}

function trimText(text) {
  const lines = text.split("\n");
  const cut = lines.slice(0, 8).map((line) => (line.length > 110 ? `${line.slice(0, 110)}…` : line));
  return lines.length > 8 ? [...cut, `… (${lines.length - 8} more lines)`].join("\n") : cut.join("\n");
}

function indent(text) {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
