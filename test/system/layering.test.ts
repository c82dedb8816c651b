/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

/**
 * The layers point downward only: src/core imports nothing of the project outside src/core, and
 * src/platform imports nothing from src/content. Tests run inside workerd without a file system,
 * so Vite embeds the sources at build time. Packages (hono, drizzle-orm, ...) are not layers.
 */

const sources = import.meta.glob<string>("../../src/**/*.ts", { query: "?raw", import: "default", eager: true });

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
  /** Whether a project path may be imported from this layer. */
  allows: (target: string) => boolean;
  rule: string;
}

const RULES: LayerRule[] = [
  { layer: "src/core/", allows: (target) => target.startsWith("src/core/"), rule: "src/core imports only src/core" },
  { layer: "src/platform/", allows: (target) => !target.startsWith("src/content/") && target !== "src/content", rule: "src/platform does not import src/content" },
];

/** `file: specifier (rule)` for every import that breaks a layer rule. */
function layerViolations(files: Record<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, source] of Object.entries(files)) {
    for (const rule of RULES.filter((candidate) => file.startsWith(candidate.layer))) {
      for (const specifier of importSpecifiers(source)) {
        const target = resolveSpecifier(file, specifier);
        if (target !== null && !rule.allows(target)) violations.push(`${file}: ${specifier} (${rule.rule})`);
      }
    }
  }
  return violations.sort();
}

describe("layering", () => {
  const files = Object.fromEntries(Object.entries(sources).map(([key, source]) => [projectPath(key), source]));

  it("embeds the sources of every layer", () => {
    expect(Object.keys(files).filter((file) => file.startsWith("src/core/")).length).toBeGreaterThan(5);
    expect(Object.keys(files).filter((file) => file.startsWith("src/platform/")).length).toBeGreaterThan(5);
  });

  it("src/core imports nothing outside src/core, and src/platform nothing from src/content", () => {
    expect(layerViolations(files)).toEqual([]);
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
