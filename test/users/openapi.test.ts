import { describe, expect, it } from "vitest";
import { usersRoutes } from "../../src/platform/users/routes";

describe("OpenAPI description of the users area", () => {
  it("documents every users and profile endpoint with a summary and the list's query parameters", () => {
    const doc = usersRoutes.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "users", version: "1" } });
    const paths = doc.paths as Record<string, Record<string, { summary?: string; parameters?: { name: string }[] }>>;
    const expected: [string, string][] = [
      ["/t/users", "post"],
      ["/t/users", "get"],
      ["/t/users/bulk-activate", "post"],
      ["/t/users/bulk-deactivate", "post"],
      ["/t/users/{id}", "get"],
      ["/t/users/{id}", "put"],
      ["/t/users/{id}", "delete"],
      ["/t/users/{id}/permanent", "delete"],
      ["/t/users/{id}/role", "put"],
      ["/t/users/{id}/permissions", "get"],
      ["/t/users/{id}/permissions", "put"],
      ["/t/users/{id}/curator", "put"],
      ["/t/me/profile", "get"],
      ["/t/me/profile", "patch"],
      ["/t/me/password", "post"],
    ];
    for (const [path, method] of expected) expect(paths[path]?.[method]?.summary, `${method} ${path}`).toEqual(expect.any(String));
    expect(Object.keys(paths).length).toBe(10);
    expect(paths["/t/users"]!.get!.parameters!.map((p) => p.name).sort()).toEqual(["X-D1-Bookmark", "X-Tenant-Subdomain", "limit", "page", "q", "role", "status"]);
  });
});
