import { beforeAll, describe, expect, it } from "vitest";
import { routeRegistry, type RouteMeta } from "../../src/core/http/route";
import { api, failure } from "../helpers/http";
import { castFor, concretePath, passingCaller, type Cast } from "../helpers/routes";

type Operation = { requestBody?: { content?: Record<string, unknown> } };

/** The registered routes whose operation takes a JSON body (a hidden trailing-slash twin reads its twin's). */
async function routesWithJsonBody(): Promise<{ routes: RouteMeta[]; documentedBodies: number }> {
  const res = await api("/openapi.json");
  expect(res.status, "the OpenAPI document must generate (see test/system/openapi.test.ts)").toBe(200);
  const paths = (res.body as { paths: Record<string, Record<string, Operation>> }).paths;
  const takesJson = (operation: Operation | undefined) => operation?.requestBody?.content?.["application/json"] !== undefined;
  const routes = routeRegistry.filter((route) => {
    const openApiPath = route.path.replaceAll(/:(\w+)/g, "{$1}").replace(/(.)\/$/, "$1");
    return takesJson(paths[openApiPath]?.[route.method.toLowerCase()]);
  });
  const documentedBodies = Object.values(paths).flatMap((operations) => Object.values(operations).filter(takesJson)).length;
  return { routes, documentedBodies };
}

function call(route: RouteMeta, cast: Cast, body: string) {
  return api(concretePath(route), {
    method: route.method,
    raw: body,
    token: route.gate.kind === "public" ? undefined : cast.tokens[passingCaller(route)],
    tenant: route.family === "tenant" ? cast.subdomain : undefined,
  });
}

/**
 * One rule for the whole API (docs/decisions/http.md, "Input rules for the whole API"): a JSON body key the endpoint does not list is
 * refused with the endpoint's own body-validation identifier, and the details name the key.
 */
describe("unknown keys in JSON bodies", () => {
  let cast: Cast;
  let routes: RouteMeta[];
  let documentedBodies: number;

  beforeAll(async () => {
    cast = await castFor();
    ({ routes, documentedBodies } = await routesWithJsonBody());
  });

  it("finds every route that takes a JSON body, optional bodies and the hidden trailing-slash twin included", () => {
    expect(routes.filter((route) => route.documented).length).toBe(documentedBodies);
    expect(routes.some((route) => !route.documented)).toBe(true);
    const keys = routes.map((route) => `${route.method} ${route.path}`);
    for (const expected of [
      "POST /api/v1/auth/login",
      "POST /api/v1/auth/refresh",
      "POST /api/v1/admin/tenants/",
      "PATCH /api/v1/t/tenant/device-policy",
      "PUT /api/v1/t/users/:id",
      "POST /api/v1/admin/tenants/:id/activate",
    ]) {
      expect(keys).toContain(expected);
    }
  });

  for (const key of ["unexpected_field", "Role", "__proto__", "constructor"]) {
    it(`answers 400 with each route's body identifier to an extra "${key}" key, naming it`, async () => {
      const results = [];
      for (const route of routes) {
        const res = await call(route, cast, `{${JSON.stringify(key)}: true}`);
        const details = (res.body?.details ?? []) as { path: string; message: string }[];
        results.push({
          route: `${route.method} ${route.path}`,
          ...failure(res),
          named: details.some((detail) => detail.message.includes(`"${key}"`)),
        });
      }
      expect(results).toEqual(routes.map((route) => ({ route: `${route.method} ${route.path}`, status: 400, error: route.errors.body, named: true })));
    });
  }

  it("refuses the extra key next to an otherwise valid body, and nothing is written", async () => {
    const admin = cast.tokens.admin!;
    const patch = (body: unknown) => api("/t/tenant/device-policy", { method: "PATCH", body, token: admin, tenant: cast.subdomain });
    const refused = await patch({ max_active_devices: 3, max_devices: 3 });
    expect(failure(refused)).toEqual({ status: 400, error: "invalid_device_policy" });
    expect(refused.body.message).toContain('"max_devices"');
    const read = await api("/t/tenant/device-policy", { token: admin, tenant: cast.subdomain });
    expect(read.body.data.max_active_devices).toBeNull();

    const superadmin = cast.tokens.superadmin!;
    const title = `School ${Date.now()}`;
    const create = await api("/admin/tariffs", { body: { title, duration_days: 30, price: 100 }, token: superadmin });
    expect(failure(create)).toEqual({ status: 400, error: "validation error" });
    const list = await api("/admin/tariffs", { token: superadmin });
    expect((list.body.data as { title: string }[]).some((tariff) => tariff.title === title)).toBe(false);
  });
});
