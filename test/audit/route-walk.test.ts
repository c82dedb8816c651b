import { describe, expect, it } from "vitest";
import "../../src/app";
import { API_PREFIX, routeRegistry } from "../../src/core/http/route";
import { AUDIT_ACTIONS } from "../../src/platform/audit/actions";

/**
 * The areas the audit log covers (05 section 6), as path prefixes. Platform areas here; the content
 * and accommodation prefixes are added with the routes that write their entries.
 */
const COVERED_PREFIXES = [
  "/auth/",
  "/admin/tenants",
  "/admin/tariffs",
  "/t/users",
  "/t/me/",
  "/t/tenant/device-policy",
  "/t/media",
  "/media/",
  "/t/notifications/",
  "/t/audit-log",
  // The content areas of 05 section 6: enrollments, groups, grading, submissions, rating admin.
  "/t/courses/:id/enroll",
  "/t/courses/:id/enrollments/",
  "/t/courses/:id/group-enrollments",
  "/t/groups",
  "/t/attempts",
  "/t/assignments/:id/submissions",
  "/t/submissions",
  "/t/admin/rating/adjustments",
  "/t/admin/gamification/rules",
].map((prefix) => API_PREFIX + prefix);

/** Paths covered by themselves, not their subpaths (`/t/tenant/screenshot-protection` is the content areas'). */
const COVERED_PATHS = ["/t/tenant", "/t/exam-attempts/:id/extend"].map((path) => API_PREFIX + path);

const covered = (path: string) => COVERED_PATHS.includes(path) || COVERED_PREFIXES.some((prefix) => path.startsWith(prefix));

describe("audit declarations of the registry's routes", () => {
  const writes = routeRegistry.filter((route) => route.method !== "GET" && covered(route.path));

  it("walks the platform's write routes", () => {
    expect(writes.length).toBeGreaterThan(40);
  });

  it("every write route of a covered area declares its audit actions or why it writes none", () => {
    const undeclared = writes.filter((route) => route.audit === null).map((route) => `${route.method} ${route.path}`);
    expect(undeclared).toEqual([]);
    const unexplained = writes
      .filter((route) => route.audit !== null && "none" in route.audit && route.audit.none.trim().length < 10)
      .map((route) => `${route.method} ${route.path}`);
    expect(unexplained).toEqual([]);
  });

  it("every declared action, in any area, is in the catalogue", () => {
    const catalogue = new Set<string>(AUDIT_ACTIONS);
    const unknown = routeRegistry.flatMap((route) =>
      route.audit !== null && "actions" in route.audit
        ? route.audit.actions.filter((action) => !catalogue.has(action)).map((action) => `${route.method} ${route.path}: ${action}`)
        : [],
    );
    expect(unknown).toEqual([]);
    const empty = routeRegistry.filter((route) => route.audit !== null && "actions" in route.audit && route.audit.actions.length === 0);
    expect(empty.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it("the catalogue has no duplicates and uses the area.verb form", () => {
    expect(new Set(AUDIT_ACTIONS).size).toBe(AUDIT_ACTIONS.length);
    for (const action of AUDIT_ACTIONS) expect(action).toMatch(/^[a-z_]+\.[a-z_]+$/);
  });
});
