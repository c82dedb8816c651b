/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

/**
 * Comments and docs cite decisions as `docs/decisions/<file>.md, "<Heading>"` (or the file alone),
 * and a reader who follows one must land on it: every cited file exists and every cited heading is
 * a heading (any level from `##`) of that file. The old single file, docs/decisions.md, is gone, so
 * naming it is a failure too. Tests run inside workerd without a file system, so Vite embeds the
 * sources and docs at build time (as test/system/layering.test.ts does). This file is left out of
 * the scan: its planted citations are wrong on purpose.
 */

const sourceModules = import.meta.glob<string>(
  [
    "../../src/**/*.ts",
    "../../test/**/*.ts",
    "../../scripts/**/*.{mjs,js,ts}",
    "../../durable-objects/**/*.ts",
    "../../queues/**/*.ts",
    "../../*.{ts,toml}",
    "!./decision-citations.test.ts",
  ],
  { query: "?raw", import: "default", eager: true },
);
const docModules = import.meta.glob<string>(["../../docs/**/*.md", "../../README.md"], {
  query: "?raw",
  import: "default",
  eager: true,
});

/** `../../src/core/http/route.ts` → `src/core/http/route.ts` */
const projectPath = (globKey: string) => globKey.replace(/^(\.\.\/)+/, "");
const byProjectPath = (modules: Record<string, string>) =>
  Object.fromEntries(Object.entries(modules).map(([key, text]) => [projectPath(key), text]));

interface Citation {
  file: string;
  heading: string | null;
}

/**
 * Every citation in a text. A comment may wrap a citation over lines, so line breaks with the
 * comment marks that follow them (` * `, `// `) read as one space first.
 */
function citationsIn(text: string): Citation[] {
  const flat = text.replaceAll(/[ \t]*\r?\n[ \t]*(?:\*(?!\/)|\/\/)?[ \t]*/g, " ");
  return [...flat.matchAll(/docs\/decisions\/([\w./-]+?\.md)(?:,\s*"([^"]+)")?/g)].map((match) => ({
    file: `docs/decisions/${match[1]!}`,
    heading: match[2] ?? null,
  }));
}

/** The headings of a markdown file (levels 2 to 6, outside fenced code). */
function headingsOf(markdown: string): Set<string> {
  const headings = new Set<string>();
  let fenced = false;
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^#{2,6}[ \t]+(.+?)[ \t]*$/.exec(line);
    if (match) headings.add(match[1]!);
  }
  return headings;
}

/** Each broken citation as `<path>: <citation>: <why>`, in path order. */
function brokenCitations(texts: Record<string, string>, decisionFiles: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const path of Object.keys(texts).sort()) {
    const text = texts[path]!;
    if (/docs\/decisions\.md/.test(text)) problems.push(`${path}: docs/decisions.md: the old file; cite docs/decisions/<area>.md`);
    for (const { file, heading } of citationsIn(text)) {
      const target = decisionFiles[file];
      const cited = heading === null ? file : `${file}, "${heading}"`;
      if (target === undefined) problems.push(`${path}: ${cited}: no such file`);
      else if (heading !== null && !headingsOf(target).has(heading)) problems.push(`${path}: ${cited}: no such heading`);
    }
  }
  return problems;
}

const sources = byProjectPath(sourceModules);
const docs = byProjectPath(docModules);
const decisionFiles = Object.fromEntries(Object.entries(docs).filter(([path]) => path.startsWith("docs/decisions/")));

describe("decision citations", () => {
  it("every citation in the code names an existing decision file and heading", () => {
    expect(Object.keys(sources)).toContain("src/core/db/batch.ts");
    expect(Object.keys(decisionFiles)).toContain("docs/decisions/architecture.md");
    const cited = Object.values(sources).flatMap(citationsIn);
    expect(cited.length).toBeGreaterThan(40);
    expect(brokenCitations(sources, decisionFiles)).toEqual([]);
  });

  it("every citation in README.md and docs/ names an existing decision file and heading", () => {
    expect(Object.keys(docs)).toContain("README.md");
    expect(brokenCitations(docs, decisionFiles)).toEqual([]);
  });

  it("fails on a missing file, a missing heading and the old path, and passes a good citation", () => {
    const decisions = {
      "docs/decisions/rating.md": "# Rating\n\n## Rating\n\n- text\n\n### Awards\n\n```\n## Not a heading\n```\n",
    };
    const planted = {
      "src/bad-file.ts": '/** Ranking (docs/decisions/ratings.md, "Rating"): ... */',
      "src/bad-heading.ts": '/**\n * Who sees whom (docs/decisions/rating.md,\n * "Reads"): ...\n */',
      "src/fenced.ts": '// docs/decisions/rating.md, "Not a heading"',
      "src/old-path.ts": "// (docs/decisions.md, Rating)",
      "src/good.ts": '/**\n * Awards (docs/decisions/rating.md,\n * "Awards"), ranking (docs/decisions/rating.md, "Rating"), all of it (docs/decisions/rating.md).\n */',
    };
    expect(brokenCitations(planted, decisions)).toEqual([
      'src/bad-file.ts: docs/decisions/ratings.md, "Rating": no such file',
      'src/bad-heading.ts: docs/decisions/rating.md, "Reads": no such heading',
      'src/fenced.ts: docs/decisions/rating.md, "Not a heading": no such heading',
      "src/old-path.ts: docs/decisions.md: the old file; cite docs/decisions/<area>.md",
    ]);
    expect(citationsIn(planted["src/good.ts"])).toEqual([
      { file: "docs/decisions/rating.md", heading: "Awards" },
      { file: "docs/decisions/rating.md", heading: "Rating" },
      { file: "docs/decisions/rating.md", heading: null },
    ]);
    expect(brokenCitations({ "src/good.ts": planted["src/good.ts"] }, decisions)).toEqual([]);
  });
});
