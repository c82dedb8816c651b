import { describe, expect, it } from "vitest";
import { routeRegistry } from "../../src/core/http/route";
import { api } from "../helpers/http";

type Schema = { $ref?: string; allOf?: Schema[]; properties?: Record<string, { enum?: string[] }> };

describe("failure identifiers in the served document", () => {
  it("every failure response's `error` is the enum of exactly the identifiers the route declares for that status", async () => {
    const doc = (await api("/openapi.json")).body;
    const mismatches: string[] = [];
    let checked = 0;
    for (const route of routeRegistry.filter((candidate) => candidate.documented)) {
      const operation = doc.paths[route.path.replaceAll(/:(\w+)/g, "{$1}")][route.method.toLowerCase()];
      const statuses = new Set(route.failures.map((failure) => String(failure.status)));
      for (const status of statuses) {
        const declared = [...new Set(route.failures.filter((failure) => String(failure.status) === status).map((failure) => failure.code))].sort();
        const schema: Schema | undefined = operation.responses[status]?.content?.["application/json"]?.schema;
        const base = schema?.allOf?.[0]?.$ref;
        const listed = schema?.allOf?.[1]?.properties?.error?.enum ?? [];
        checked++;
        if (!base?.startsWith("#/components/schemas/") || JSON.stringify([...listed].sort()) !== JSON.stringify(declared)) {
          mismatches.push(`${route.method} ${route.path} ${status}: ${JSON.stringify(listed)} vs ${JSON.stringify(declared)}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(checked).toBeGreaterThan(500);
  });
});
