import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import {
  decimalField,
  DecimalString,
  formatHundredths,
  formatHundredthsOrNull,
  hundredthsFromNumber,
  hundredthsOf,
  parseHundredths,
  percent,
  percentHundredths,
  PercentString,
  roundDiv,
} from "../../../src/core/db/decimal";

describe("formatHundredths", () => {
  it.each([
    [1250, "12.50"],
    [1205, "12.05"],
    [0, "0.00"],
    [-0, "0.00"],
    [1, "0.01"],
    [-5, "-0.05"],
    [-1250, "-12.50"],
    [100, "1.00"],
    [123456789, "1234567.89"],
  ])("%d → %s", (hundredths, text) => {
    expect(formatHundredths(hundredths)).toBe(text);
  });

  it("refuses what is not integer hundredths", () => {
    expect(() => formatHundredths(12.5)).toThrow(RangeError);
    expect(() => formatHundredths(Number.NaN)).toThrow(RangeError);
  });

  it("passes null through in the OrNull form", () => {
    expect(formatHundredthsOrNull(null)).toBeNull();
    expect(formatHundredthsOrNull(undefined)).toBeNull();
    expect(formatHundredthsOrNull(7)).toBe("0.07");
  });
});

describe("exact half-up rounding", () => {
  it.each([
    [5, 2, 3],
    [7, 2, 4],
    [-5, 2, -3],
    [5, -2, -3],
    [4, 3, 1],
    [5, 3, 2],
    [0, 7, 0],
    [-1, 3, 0],
  ])("roundDiv(%d, %d) = %d", (numerator, denominator, result) => {
    expect(Object.is(roundDiv(numerator, denominator), result)).toBe(true);
  });

  it.each([
    [2, 3, 67],
    [1, 3, 33],
    [1005, 1000, 101],
    [1004, 1000, 100],
    [-1005, 1000, -101],
    [1, 8, 13],
    [1, 200, 1],
    [1, 201, 0],
    [0, 5, 0],
  ])("hundredthsOf(%d, %d) = %d", (numerator, denominator, result) => {
    expect(hundredthsOf(numerator, denominator)).toBe(result);
  });

  it("stays exact past the float range of the product", () => {
    expect(hundredthsOf(Number.MAX_SAFE_INTEGER, 1000)).toBe(900719925474099);
  });

  it("refuses a zero divisor and non-integers", () => {
    expect(() => roundDiv(1, 0)).toThrow(RangeError);
    expect(() => hundredthsOf(1.5, 2)).toThrow(RangeError);
  });

  it.each([
    [1.005, 101],
    [2.675, 268],
    [1.0049, 100],
    [-1.005, -101],
    [0.125, 13],
    [66.666666, 6667],
    [12, 1200],
    [0, 0],
    [-0.001, 0],
    [1e-7, 0],
    [1.5e3, 150000],
    [0.1 + 0.2, 30],
  ])("hundredthsFromNumber(%d) = %d", (value, result) => {
    expect(Object.is(hundredthsFromNumber(value), result)).toBe(true);
  });

  it("refuses NaN and infinities", () => {
    expect(() => hundredthsFromNumber(Number.NaN)).toThrow(RangeError);
    expect(() => hundredthsFromNumber(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe("parseHundredths", () => {
  it.each([
    ["12.50", 1250],
    ["12.5", 1250],
    ["12", 1200],
    ["0", 0],
    ["-0", 0],
    ["0.01", 1],
    ["-3.25", -325],
    [" 7.1 ", 710],
    ["007.5", 750],
    ["9999999999999.99", 999999999999999],
    [12.5, 1250],
    [100, 10000],
    [-0.05, -5],
  ])("%j → %d", (value, result) => {
    expect(Object.is(parseHundredths(value), result)).toBe(true);
  });

  it.each([
    ["12.345"],
    ["1e3"],
    ["1E3"],
    ["NaN"],
    ["Infinity"],
    [""],
    ["."],
    [".5"],
    ["5."],
    ["+5"],
    ["1,5"],
    ["0x10"],
    ["12.5.1"],
    ["10000000000000"],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [1e21],
    [12.345],
    [0.1 + 0.2],
    [null],
    [true],
    [[1]],
  ])("%j → null", (value) => {
    expect(parseHundredths(value)).toBeNull();
  });
});

describe("decimalField", () => {
  it("yields hundredths within the bounds", () => {
    const field = decimalField({ min: 0, max: 1000 });
    expect(field.parse("12.50")).toBe(1250);
    expect(field.parse(0)).toBe(0);
    expect(field.parse("1000")).toBe(100000);
  });

  it("explains a malformed value", () => {
    const result = decimalField().safeParse("1e3");
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['must be a decimal with at most two decimals, such as "12.50"']);
  });

  it("explains a value out of range", () => {
    const field = decimalField({ min: 0, max: 1000 });
    expect(field.safeParse("1000.01").error?.issues[0]?.message).toBe("must be at least 0.00 and at most 1000.00");
    expect(field.safeParse(-1).error?.issues[0]?.message).toBe("must be at least 0.00 and at most 1000.00");
  });

  it("excludes min when asked", () => {
    const field = decimalField({ min: 0, exclusiveMin: true });
    expect(field.safeParse("0").error?.issues[0]?.message).toBe("must be greater than 0.00");
    expect(field.parse("0.01")).toBe(1);
  });

  it("refuses other types", () => {
    for (const value of [null, true, {}, [], undefined]) expect(decimalField().safeParse(value).success).toBe(false);
  });

  it("documents itself in the OpenAPI document", () => {
    const app = new OpenAPIHono();
    const route = createRoute({
      method: "post",
      path: "/points",
      request: { body: { content: { "application/json": { schema: z.object({ points: decimalField({ min: 0, exclusiveMin: true }) }) } } } },
      responses: { 200: { description: "ok", content: { "application/json": { schema: z.object({ points: DecimalString, pct: PercentString }) } } } },
    });
    app.openapi(route, (c) => c.json({ points: "1.00", pct: null }));
    const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    const body = doc.paths?.["/points"]?.post?.requestBody as { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
    expect(body.content["application/json"]!.schema.properties.points).toMatchObject({ type: "string", example: "12.50" });
  });
});

describe("percentages", () => {
  it.each([
    [2, 3, "66.67"],
    [1, 3, "33.33"],
    [1, 8, "12.50"],
    [1, 1, "100.00"],
    [0, 5, "0.00"],
    [1, 200000, "0.00"],
    [1, 20000, "0.01"],
    [5, 4, "100.00"],
    [-1, 4, "0.00"],
    [1250, 2000, "62.50"],
  ])("percent(%d, %d) = %s", (part, whole, text) => {
    expect(percent(part, whole)).toBe(text);
  });

  it("is null when there is nothing to measure", () => {
    expect(percent(0, 0)).toBeNull();
    expect(percentHundredths(3, 0)).toBeNull();
  });

  it("gives hundredths of a percent for comparisons", () => {
    expect(percentHundredths(2, 3)).toBe(6667);
    expect(percentHundredths(7, 10)).toBe(7000);
  });
});
