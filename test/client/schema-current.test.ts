/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import committed from "../../clients/typescript/src/schema.d.ts?raw";
import fresh from "../../.wrangler/openapi/client-schema.d.ts?raw";
import example from "../../clients/typescript/examples/readme.ts?raw";
import readme from "../../README.md?raw";
import guide from "../../docs/api-clients.md?raw";

/** The first line where two texts differ, to point at the stale operation without dumping 800 kB. */
function firstDifference(a: string, b: string): string {
  const left = a.split("\n");
  const right = b.split("\n");
  const line = left.findIndex((text, index) => text !== right[index]);
  const at = line === -1 ? left.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(left[at] ?? "<end>")}, served ${JSON.stringify(right[at] ?? "<end>")}`;
}

describe("the TypeScript client's committed files", () => {
  it("has types generated from the document the Worker serves (regenerated in memory before the run)", () => {
    // `npm test` regenerates the fresh copy first (pretest: scripts/openapi.mjs); it is never committed.
    expect(fresh).toContain("export interface paths");
    const current = committed === fresh;
    expect(current, current ? "" : `clients/typescript/src/schema.d.ts is stale: run \`npm run client:build\` and commit it (${firstDifference(committed, fresh)})`).toBe(true);
  });

  it("is shown in the README and docs/api-clients.md by its five-line example, verbatim (the example file is type-checked)", () => {
    expect(example.trimEnd().split("\n")).toHaveLength(5);
    expect(readme).toContain("```ts\n" + example + "```\n");
    expect(guide).toContain("```ts\n" + example + "```\n");
  });
});
