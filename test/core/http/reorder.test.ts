import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createArea } from "../../../src/core/http/area";
import { onError } from "../../../src/core/http/error-handler";
import { ApiError } from "../../../src/core/http/errors";
import { jsonBody } from "../../../src/core/http/fields";
import type { RouteMeta } from "../../../src/core/http/route";
import { checkReorder, orderingErrors, reorderBody } from "../../../src/core/http/reorder";

const A = "0190a6c2-0000-7000-8000-00000000000a";
const B = "0190a6c2-0000-7000-8000-00000000000b";
const C = "0190a6c2-0000-7000-8000-00000000000c";
const FOREIGN = "0190a6c2-0000-7000-8000-0000000000ff";

function failure(run: () => void): { status: number; code: string } | null {
  try {
    run();
    return null;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { status: err.status, code: err.code };
  }
}

describe("orderingErrors", () => {
  it("are the contract's identifiers", () => {
    expect(orderingErrors.REORDER_DUPLICATE).toMatchObject({ status: 409, code: "reorder_duplicate" });
    expect(orderingErrors.REORDER_INCOMPLETE).toMatchObject({ status: 409, code: "reorder_incomplete" });
  });
});

describe("checkReorder", () => {
  it("accepts the exact set in any order", () => {
    expect(failure(() => checkReorder([C, A, B], [A, B, C]))).toBeNull();
    expect(failure(() => checkReorder([A], [A]))).toBeNull();
  });

  it("answers reorder_duplicate for a repeated id, before any other check", () => {
    expect(failure(() => checkReorder([A, A, B, C], [A, B, C]))).toEqual({ status: 409, code: "reorder_duplicate" });
    expect(failure(() => checkReorder([A, A], [A, B, C]))).toEqual({ status: 409, code: "reorder_duplicate" });
    expect(failure(() => checkReorder([FOREIGN, FOREIGN], [A]))).toEqual({ status: 409, code: "reorder_duplicate" });
  });

  it("answers reorder_incomplete for a missing, extra or foreign id", () => {
    const incomplete = { status: 409, code: "reorder_incomplete" };
    expect(failure(() => checkReorder([A, B], [A, B, C]))).toEqual(incomplete);
    expect(failure(() => checkReorder([A, B, C, FOREIGN], [A, B, C]))).toEqual(incomplete);
    expect(failure(() => checkReorder([A, B, FOREIGN], [A, B, C]))).toEqual(incomplete);
    expect(failure(() => checkReorder([A], []))).toEqual(incomplete);
  });
});

describe("reorderBody", () => {
  const body = reorderBody("block_ids", { max: 3 });

  it("parses the ids, lower-cased", () => {
    expect(body.parse({ block_ids: [A.toUpperCase(), B] })).toEqual({ block_ids: [A, B] });
  });

  it("refuses an empty, oversize or malformed list", () => {
    expect(body.safeParse({ block_ids: [] }).error?.issues[0]?.message).toBe("must list at least one id");
    expect(body.safeParse({ block_ids: [A, B, C, FOREIGN] }).error?.issues[0]?.message).toBe("must list at most 3 ids");
    expect(body.safeParse({ block_ids: ["not-a-uuid"] }).error?.issues[0]?.message).toBe("must be a UUID");
    expect(body.safeParse({}).success).toBe(false);
    expect(body.safeParse({ block_ids: A }).success).toBe(false);
  });

  it("leaves duplicates to checkReorder (409, not 400)", () => {
    expect(body.parse({ block_ids: [A, A.toUpperCase()] })).toEqual({ block_ids: [A, A] });
  });
});

describe("a reorder endpoint built from the helpers", () => {
  /** The validators and error rendering of every route, with the endpoint's own body identifier. */
  function endpoint() {
    const app = createArea();
    app.use("*", async (c, next) => {
      c.set("route", { errors: { body: "invalid_body", query: "invalid_params", param: "invalid_id_format" } } as RouteMeta);
      await next();
    });
    const route = createRoute({
      method: "patch",
      path: "/lessons/reorder",
      request: jsonBody(reorderBody("lesson_ids", { max: 500 })),
      responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({ reordered: z.number() }) } } } },
    });
    app.openapi(route, (c) => {
      const ids = c.req.valid("json").lesson_ids;
      checkReorder(ids, [A, B, C]);
      return c.json({ reordered: ids.length }, 200);
    });
    app.onError(onError);
    return app;
  }

  async function send(body: unknown) {
    const res = await endpoint().request("/lessons/reorder", { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { error?: string; reordered?: number } };
  }

  it("answers an empty list with the endpoint's validation identifier", async () => {
    expect(await send({ lesson_ids: [] })).toMatchObject({ status: 400, body: { error: "invalid_body" } });
  });

  it("answers duplicates and an incomplete set with 409", async () => {
    expect(await send({ lesson_ids: [A, A, B] })).toMatchObject({ status: 409, body: { error: "reorder_duplicate" } });
    expect(await send({ lesson_ids: [A, B] })).toMatchObject({ status: 409, body: { error: "reorder_incomplete" } });
  });

  it("accepts the exact set", async () => {
    expect(await send({ lesson_ids: [C, B, A] })).toEqual({ status: 200, body: { reordered: 3 } });
  });
});
