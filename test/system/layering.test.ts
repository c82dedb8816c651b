/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

/**
 * The layers point downward only: src/core imports nothing of the project outside src/core (and
 * src/core/db nothing of src/core/http), src/platform imports nothing from src/content, and the
 * Durable Objects (durable-objects/) and queue consumers (queues/) sit on top: they import the
 * areas, no area imports them (only the Worker entry, src/index.ts, exports them). Areas (the
 * folders of src/content and src/platform) form no import cycle. Tests run inside workerd
 * without a file system, so Vite embeds the sources at build time. Packages (hono, drizzle-orm,
 * ...) are not layers.
 */

const sources = import.meta.glob<string>(["../../src/**/*.ts", "../../durable-objects/**/*.ts", "../../queues/**/*.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
});

/** `../../src/core/http/route.ts` → `src/core/http/route.ts` */
const projectPath = (globKey: string) => globKey.replace(/^(\.\.\/)+/, "");

/** Every module specifier a source names: static imports and re-exports (types included) and dynamic imports. */
function importSpecifiers(source: string): string[] {
  const code = source.replaceAll(/\/\*[\s\S]*?\*\//g, "").replaceAll(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const patterns = [
    // import x from "m"; import type { X } from "m"; import * as m from "m"; export { x } from "m"; export * from "m"
    /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s+)?["']([^"']+)["']/g,
    // import("m"), await import ("m")
    /\bimport\s*\(\s*["']([^"']+)["']\s*[,)]/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** The project path a relative specifier points at (without extension), or null for a package. */
function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const parts = from.split("/").slice(0, -1);
  for (const segment of specifier.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") parts.pop();
    else parts.push(segment);
  }
  return parts.join("/").replace(/\.(ts|js|mjs)$/, "");
}

interface LayerRule {
  layer: string;
  /** Files of the layer the rule does not apply to. */
  except?: string[];
  /** Whether a project path may be imported from this layer. */
  allows: (target: string) => boolean;
  rule: string;
}

const underAny = (target: string, folders: string[]) => folders.some((folder) => target.startsWith(`${folder}/`) || target === folder);

const RULES: LayerRule[] = [
  { layer: "src/core/", allows: (target) => target.startsWith("src/core/"), rule: "src/core imports only src/core" },
  { layer: "src/core/db/", allows: (target) => !underAny(target, ["src/core/http"]), rule: "src/core/db does not import src/core/http" },
  { layer: "src/platform/", allows: (target) => !underAny(target, ["src/content"]), rule: "src/platform does not import src/content" },
  {
    layer: "src/",
    except: ["src/index.ts"],
    allows: (target) => !underAny(target, ["durable-objects", "queues"]),
    rule: "only the Worker entry imports durable-objects/ and queues/",
  },
  {
    layer: "durable-objects/",
    allows: (target) => underAny(target, ["durable-objects", "src/core", "src/db", "src/content", "src/platform", "src/contributors"]),
    rule: "durable-objects/ imports only itself, src/core, src/db, the areas and the contributors' registry",
  },
  {
    layer: "queues/",
    allows: (target) => underAny(target, ["queues", "src/core", "src/db", "src/content", "src/platform", "src/contributors"]),
    rule: "queues/ imports only itself, src/core, src/db, the areas and the contributors' registry",
  },
];

/** `file: specifier (rule)` for every import that breaks a layer rule. */
function layerViolations(files: Record<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, source] of Object.entries(files)) {
    for (const rule of RULES.filter((candidate) => file.startsWith(candidate.layer) && !candidate.except?.includes(file))) {
      for (const specifier of importSpecifiers(source)) {
        const target = resolveSpecifier(file, specifier);
        if (target !== null && !rule.allows(target)) violations.push(`${file}: ${specifier} (${rule.rule})`);
      }
    }
  }
  return violations.sort();
}

/** `src/content/courses/x.ts` → `content/courses`; null outside the areas. */
function areaOf(path: string): string | null {
  const match = /^src\/((?:content|platform)\/[^/]+)\//.exec(path);
  return match ? match[1]! : null;
}

/** Every import between two different areas, as `from -> to` → the first file that makes it. */
function areaEdges(files: Record<string, string>): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const [file, source] of Object.entries(files)) {
    const from = areaOf(file);
    if (from === null) continue;
    for (const specifier of importSpecifiers(source)) {
      const target = resolveSpecifier(file, specifier);
      const to = target === null ? null : areaOf(`${target}/`);
      if (to === null || to === from) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, `${file} imports ${specifier}`);
      edges.set(from, out);
    }
  }
  return edges;
}

/** The shortest import path from `start` to `goal` between areas, or null when there is none. */
function areaPath(edges: Map<string, Map<string, string>>, start: string, goal: string): string[] | null {
  const previous = new Map<string, string>([[start, start]]);
  const queue = [start];
  while (queue.length > 0) {
    const area = queue.shift()!;
    if (area === goal) {
      const path = [goal];
      while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
      return path;
    }
    for (const next of edges.get(area)?.keys() ?? []) {
      if (previous.has(next)) continue;
      previous.set(next, area);
      queue.push(next);
    }
  }
  return null;
}

/** Each area edge `a -> b` that lies on a cycle (b imports its way back to a), with that cycle. */
function cycleEdges(files: Record<string, string>): Map<string, string> {
  const edges = areaEdges(files);
  const found = new Map<string, string>();
  for (const [from, out] of edges) {
    for (const [to, via] of out) {
      const back = areaPath(edges, to, from);
      if (back) found.set(`${from} -> ${to}`, `${[from, ...back].join(" -> ")} (${via})`);
    }
  }
  return found;
}

/**
 * Every area edge that lies on a cycle, as `cycle edge a -> b: <the cycle> (<the import>)`. The
 * areas form none: a piece two areas share moves down (src/core, content/common) or into the area
 * that owns it, and a write one area makes on another's behalf is a domain event with a contributor
 * (docs/domain-events.md). The platform areas' order is in docs/decisions/platform-layers.md, the
 * content areas' in docs/decisions/content-layers.md.
 */
function cycleProblems(files: Record<string, string>): string[] {
  return [...cycleEdges(files)].map(([edge, cycle]) => `cycle edge ${edge}: ${cycle}`).sort();
}

describe("layering", () => {
  const files = Object.fromEntries(Object.entries(sources).map(([key, source]) => [projectPath(key), source]));

  it("embeds the sources of every layer", () => {
    expect(Object.keys(files).filter((file) => file.startsWith("src/core/")).length).toBeGreaterThan(5);
    expect(Object.keys(files).filter((file) => file.startsWith("src/platform/")).length).toBeGreaterThan(5);
    expect(Object.keys(files).filter((file) => file.startsWith("durable-objects/")).length).toBeGreaterThan(2);
    expect(Object.keys(files).filter((file) => file.startsWith("queues/")).length).toBeGreaterThan(2);
  });

  it("every import points down: src/core, src/core/db, src/platform, and durable-objects/ and queues/ above the areas", () => {
    expect(layerViolations(files)).toEqual([]);
  });

  it("areas form no import cycle", () => {
    expect(cycleProblems(files)).toEqual([]);
  });

  it("catches a cycle between areas", () => {
    const planted = {
      "src/content/quizzes/a.ts": 'import { x } from "../attempts/b";',
      "src/content/attempts/b.ts": 'import { y } from "../exams/c";\nimport { z } from "../../core/http/errors";',
      "src/content/exams/c.ts": 'import type { Q } from "../quizzes/a";',
      "src/content/groups/d.ts": 'import { e } from "../attempts/b";',
    };
    expect(cycleProblems(planted)).toEqual([
      "cycle edge content/attempts -> content/exams: content/attempts -> content/exams -> content/quizzes -> content/attempts (src/content/attempts/b.ts imports ../exams/c)",
      "cycle edge content/exams -> content/quizzes: content/exams -> content/quizzes -> content/attempts -> content/exams (src/content/exams/c.ts imports ../quizzes/a)",
      "cycle edge content/quizzes -> content/attempts: content/quizzes -> content/attempts -> content/exams -> content/quizzes (src/content/quizzes/a.ts imports ../attempts/b)",
    ]);
  });

  it("catches imports of Durable Objects and queues from src, and of src/core/http from src/core/db", () => {
    const violating = {
      "src/content/attempts/journal.ts": 'import type { AttemptJournal } from "../../../durable-objects/attempt-journal";',
      "src/platform/email/x.ts": 'import { consume } from "../../../queues/outbox-consumer";',
      "src/index.ts": 'export { AttemptJournal } from "../durable-objects/attempt-journal";\nimport { queue } from "../queues/push-consumer";',
      "src/core/db/y.ts": 'import type { ServiceContext } from "../http/context";\nimport type { Env } from "../env";',
      "durable-objects/z.ts": 'import { finalize } from "../src/content/attempts/finalize";\nimport { app } from "../src/app";\nimport { Caller } from "./closable-attempt";',
      "queues/w.ts": 'import { outbox } from "../src/platform/email/outbox";\nimport { journal } from "../durable-objects/attempt-journal";',
    };
    expect(layerViolations(violating)).toEqual(
      [
        "src/content/attempts/journal.ts: ../../../durable-objects/attempt-journal (only the Worker entry imports durable-objects/ and queues/)",
        "src/platform/email/x.ts: ../../../queues/outbox-consumer (only the Worker entry imports durable-objects/ and queues/)",
        "src/core/db/y.ts: ../http/context (src/core/db does not import src/core/http)",
        "durable-objects/z.ts: ../src/app (durable-objects/ imports only itself, src/core, src/db, the areas and the contributors' registry)",
        "queues/w.ts: ../durable-objects/attempt-journal (queues/ imports only itself, src/core, src/db, the areas and the contributors' registry)",
      ].sort(),
    );
  });

  it("catches every import form that crosses a layer", () => {
    const violating = {
      "src/core/http/a.ts": [
        'import { x } from "../../platform/users/service";',
        'import type { Y } from "../../db/schema";',
        "import {\n  z,\n  w,\n} from '../../platform/auth/jwt';",
        'export * from "../../platform/tenants/present";',
        'export { v } from "../../scheduled";',
        'import "../../app";',
        'const lazy = await import("../../platform/email/outbox");',
        'import * as ns from "../lib/../../platform/devices/events";',
        'import { fine } from "../db/batch";',
        'import { Hono } from "hono";',
        "// import { commented } from '../../platform/nothing';",
      ].join("\n"),
      "src/platform/users/b.ts": 'import { course } from "../../content/courses/service";\nimport { ok } from "../../core/http/envelope";',
      "src/content/courses/c.ts": 'import { user } from "../../platform/users/service";',
    };
    expect(layerViolations(violating)).toEqual(
      [
        "src/core/http/a.ts: ../../platform/users/service (src/core imports only src/core)",
        "src/core/http/a.ts: ../../db/schema (src/core imports only src/core)",
        "src/core/http/a.ts: ../../platform/auth/jwt (src/core imports only src/core)",
        "src/core/http/a.ts: ../../platform/tenants/present (src/core imports only src/core)",
        "src/core/http/a.ts: ../../scheduled (src/core imports only src/core)",
        "src/core/http/a.ts: ../../app (src/core imports only src/core)",
        "src/core/http/a.ts: ../../platform/email/outbox (src/core imports only src/core)",
        "src/core/http/a.ts: ../lib/../../platform/devices/events (src/core imports only src/core)",
        "src/platform/users/b.ts: ../../content/courses/service (src/platform does not import src/content)",
      ].sort(),
    );
  });
});
