import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { jsonBody, optionalJsonBody, rejectingUnknownKeys } from "../../../src/core/http/fields";

const issuesOf = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues.map(({ code, message }) => ({ code, message }));

describe("rejectingUnknownKeys", () => {
  it("refuses an unknown top-level key, naming it, and keeps parsing known ones as before", () => {
    const schema = rejectingUnknownKeys(z.object({ name: z.string().trim(), age: z.number().optional() }));
    expect(schema.parse({ name: " Ann " })).toEqual({ name: "Ann" });
    expect(issuesOf(schema, { name: "Ann", nickname: "A" })).toEqual([{ code: "unrecognized_keys", message: 'Unrecognized key: "nickname"' }]);
  });

  it("leaves nested objects alone: the rule is for the body's own keys", () => {
    const schema = rejectingUnknownKeys(z.object({ meta: z.object({ a: z.number() }) }));
    expect(schema.parse({ meta: { a: 1, extra: true } })).toEqual({ meta: { a: 1 } });
  });

  it("keeps the object's refinements", () => {
    const schema = rejectingUnknownKeys(
      z
        .object({ a: z.number().optional(), b: z.number().optional() })
        .superRefine((body, ctx) => {
          if (body.a !== undefined && body.b !== undefined) ctx.addIssue({ code: "custom", message: "not both", path: [] });
        })
        .refine((body) => body.a !== 0, { message: "a must not be 0", path: ["a"] }),
    );
    expect(issuesOf(schema, { a: 1, b: 2 })).toEqual([{ code: "custom", message: "not both" }]);
    expect(issuesOf(schema, { a: 0 })).toEqual([{ code: "custom", message: "a must not be 0" }]);
    expect(issuesOf(schema, { a: 1, c: 3 })).toEqual([{ code: "unrecognized_keys", message: 'Unrecognized key: "c"' }]);
    expect(schema.parse({ a: 1 })).toEqual({ a: 1 });
  });

  it("makes the object inside a transform or pipe strict and keeps the transform", () => {
    const transformed = rejectingUnknownKeys(z.object({ a: z.string() }).transform((body) => body.a.length));
    expect(transformed.parse({ a: "abc" })).toBe(3);
    expect(issuesOf(transformed, { a: "abc", b: 1 })).toEqual([{ code: "unrecognized_keys", message: 'Unrecognized key: "b"' }]);
    const piped = rejectingUnknownKeys(z.object({ n: z.string() }).pipe(z.object({ n: z.string().min(2) })));
    expect(issuesOf(piped, { n: "xy", m: 1 })).toEqual([{ code: "unrecognized_keys", message: 'Unrecognized key: "m"' }]);
  });

  it("keeps an object that already refuses unknown keys as it is, and returns non-objects unchanged", () => {
    const already = rejectingUnknownKeys(z.strictObject({ a: z.string() }));
    expect(issuesOf(already, { a: "x", b: 1 })).toEqual([{ code: "unrecognized_keys", message: 'Unrecognized key: "b"' }]);
    const list = z.array(z.string());
    expect(rejectingUnknownKeys(list)).toBe(list);
  });

  it("keeps the OpenAPI name, and the document says additionalProperties: false", async () => {
    const { OpenAPIHono, createRoute } = await import("@hono/zod-openapi");
    const named = z.object({ a: z.string() }).refine((body) => body.a !== "").openapi("NamedRequest");
    const app = new OpenAPIHono();
    const route = createRoute({ method: "post", path: "/x", request: jsonBody(named), responses: { 200: { description: "ok" } } });
    app.openapi(route, (c) => c.json({}));
    const optional = createRoute({ method: "post", path: "/y", request: optionalJsonBody(z.object({ b: z.boolean() })), responses: { 200: { description: "ok" } } });
    app.openapi(optional, (c) => c.json({}));
    const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    expect(doc.components?.schemas?.NamedRequest).toMatchObject({ type: "object", additionalProperties: false });
    const body = (doc.paths!["/x"]!.post!.requestBody as { content: Record<string, { schema: unknown }> }).content["application/json"]!.schema;
    expect(body).toEqual({ $ref: "#/components/schemas/NamedRequest" });
    const res = await app.request("/y", { method: "POST", headers: { "content-type": "application/json" }, body: '{"b":true,"c":1}' });
    expect(res.status).toBe(400);
  });
});
