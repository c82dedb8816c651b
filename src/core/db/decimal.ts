import { z } from "@hono/zod-openapi";
import { sql, type SQL } from "drizzle-orm";

/**
 * Points, scores and percentages travel as decimal strings with two decimals ("12.50") and are
 * stored and computed as integer hundredths (1250), so sums, comparisons and rounding are exact.
 * Rounding is half-up, halves going away from zero (1.005 → 1.01, -1.005 → -1.01).
 */

function assertSafeInteger(value: number, name: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a safe integer, got ${value}`);
}

function toSafeNumber(value: bigint): number {
  const result = Number(value);
  if (!Number.isSafeInteger(result)) throw new RangeError(`${value} is beyond the safe integer range`);
  // `+ 0` turns a -0 into 0, so a rounded "-0.004" formats as "0.00".
  return result + 0;
}

function roundDivBig(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError("division by zero");
  const negative = numerator < 0n !== denominator < 0n;
  const a = numerator < 0n ? -numerator : numerator;
  const b = denominator < 0n ? -denominator : denominator;
  const rounded = (2n * a + b) / (2n * b);
  return negative ? -rounded : rounded;
}

/** `numerator / denominator` rounded half-up to an integer, exactly (both integers). */
export function roundDiv(numerator: number, denominator: number): number {
  assertSafeInteger(numerator, "numerator");
  assertSafeInteger(denominator, "denominator");
  return toSafeNumber(roundDivBig(BigInt(numerator), BigInt(denominator)));
}

/**
 * The hundredths of `numerator / denominator`, rounded half-up, exactly: `hundredthsOf(2, 3)` is
 * 67, `hundredthsOf(1005, 1000)` is 101. Any common unit works, hundredths included: a partial
 * score is `hundredthsOf(pointsHundredths * right, correct * 100)`.
 */
export function hundredthsOf(numerator: number, denominator: number): number {
  assertSafeInteger(numerator, "numerator");
  assertSafeInteger(denominator, "denominator");
  return toSafeNumber(roundDivBig(100n * BigInt(numerator), BigInt(denominator)));
}

const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;

/**
 * A number (an SQL average, a weighted sum) rounded half-up to hundredths. It rounds the shortest
 * decimal that reads back as the same number, the one JavaScript prints, so 1.005 gives 1.01 as
 * written rather than 1.00 from its binary value 1.00499999….
 */
export function hundredthsFromNumber(value: number): number {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  const match = NUMBER_TEXT.exec(String(value))!;
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  const digits = BigInt(whole! + fraction);
  const scale = fraction.length - Number(exponent);
  const magnitude = scale <= 2 ? digits * 10n ** BigInt(2 - scale) : roundDivBig(digits, 10n ** BigInt(scale - 2));
  return toSafeNumber(sign === "-" ? -magnitude : magnitude);
}

/** Integer hundredths as the API's decimal string: 1250 → "12.50", -5 → "-0.05", 0 → "0.00". */
export function formatHundredths(hundredths: number): string {
  assertSafeInteger(hundredths, "hundredths");
  const magnitude = Math.abs(hundredths);
  const sign = hundredths < 0 ? "-" : "";
  return `${sign}${Math.floor(magnitude / 100)}.${String(magnitude % 100).padStart(2, "0")}`;
}

export function formatHundredthsOrNull(hundredths: number | null | undefined): string | null {
  return hundredths === null || hundredths === undefined ? null : formatHundredths(hundredths);
}

/** Up to 13 whole digits, so every accepted value is a safe integer of hundredths. */
const DECIMAL_TEXT = /^(-?)(\d{1,13})(?:\.(\d{1,2}))?$/;

/**
 * A client's decimal, a string ("12.5", "-3.25", "7") or a JSON number (12.5), as hundredths; null
 * when it is not a plain decimal with at most two decimals (NaN, Infinity, "1e3", "12.345", "",
 * "1,5", " .5").
 */
export function parseHundredths(value: unknown): number | null {
  let text: string;
  if (typeof value === "string") text = value.trim();
  else if (typeof value === "number" && Number.isFinite(value)) text = String(value);
  else return null;
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = ""] = match;
  const magnitude = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  return (sign === "-" ? -magnitude : magnitude) + 0;
}

const DECIMAL_MESSAGE = 'must be a decimal with at most two decimals, such as "12.50"';

/**
 * A decimal body field (string or number), parsed to integer hundredths. Bounds are in the
 * client's units (`{ min: 0, max: 1000 }` is 0.00..1000.00); `exclusiveMin` makes `min` itself
 * invalid (points "> 0"). Bounds known only per record (a score up to the assignment's
 * `max_score`) are the service's check, on the parsed hundredths.
 */
export function decimalField(options: { min?: number; max?: number; exclusiveMin?: boolean } = {}) {
  const min = options.min === undefined ? undefined : hundredthsFromNumber(options.min);
  const max = options.max === undefined ? undefined : hundredthsFromNumber(options.max);
  const range = [
    min === undefined ? null : `${options.exclusiveMin ? "greater than" : "at least"} ${formatHundredths(min)}`,
    max === undefined ? null : `at most ${formatHundredths(max)}`,
  ].filter(Boolean);
  return z
    .union([z.string(), z.number()])
    .transform((value, ctx) => {
      const hundredths = parseHundredths(value);
      if (hundredths === null) {
        ctx.addIssue({ code: "custom", message: DECIMAL_MESSAGE });
        return z.NEVER;
      }
      const tooSmall = min !== undefined && (options.exclusiveMin ? hundredths <= min : hundredths < min);
      const tooBig = max !== undefined && hundredths > max;
      if (tooSmall || tooBig) {
        ctx.addIssue({ code: "custom", message: `must be ${range.join(" and ")}` });
        return z.NEVER;
      }
      return hundredths;
    })
    .openapi({
      type: "string",
      example: "12.50",
      description: `A decimal with at most two decimals, as a string (or a JSON number)${range.length > 0 ? `, ${range.join(" and ")}` : ""}.`,
    });
}

/** A decimal string of a response ("12.50"). */
export const DecimalString = z.string().openapi({ example: "12.50", pattern: "^-?\\d+\\.\\d{2}$" });

/** A percentage of a response ("66.67"), null where there is nothing to measure. */
export const PercentString = DecimalString.nullable().openapi({ example: "66.67" });

/**
 * `part / whole` as hundredths of a percent (6667 for 2 of 3), clamped to 0..100 %, or null when
 * `whole` is 0. Both in one unit: counts, or hundredths (a score and its maximum).
 */
export function percentHundredths(part: number, whole: number): number | null {
  assertSafeInteger(part, "part");
  assertSafeInteger(whole, "whole");
  if (whole === 0) return null;
  const value = toSafeNumber(roundDivBig(10_000n * BigInt(part), BigInt(whole)));
  return Math.min(10_000, Math.max(0, value));
}

/**
 * `part / whole` as the API's percentage string ("66.67"), or null when `whole` is 0. Clamped to
 * 0..100 so a count read against an older total (blocks completed before some were deleted)
 * never shows more than 100.
 */
export function percent(part: number, whole: number): string | null {
  return formatHundredthsOrNull(percentHundredths(part, whole));
}

/** Integer hundredths computed in SQL (any sign) as the API's decimal text, like `formatHundredths`: -150 → "-1.50". */
export function decimalTextSql(hundredths: SQL): SQL {
  return sql`(CASE WHEN (${hundredths}) < 0 THEN '-' ELSE '' END || printf('%d.%02d', abs(${hundredths}) / 100, abs(${hundredths}) % 100))`;
}
