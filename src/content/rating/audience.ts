import { sql } from "drizzle-orm";
import { parseHundredths } from "../../core/db/decimal";
import { ApiError } from "../../core/http/errors";
import { registerAudienceField, type AudienceRule, type CompileContext } from "../../platform/notifications/audience";
import { notificationsErrors } from "../../platform/notifications/errors";
import { schoolRankForSql, schoolTotalSql } from "./ranking";

/**
 * What the rating adds to campaign audiences (loaded with the point writer, award.ts): the fields
 * `points_total` (the student's school total, a signed decimal such as "12.50") and `rank` (their
 * school rank, as `GET /rating` without filters ranks them: competition ranking over the active
 * students, a student without points at 0), each with `gte` and `lte` and a `value`. Both read
 * the stored totals, so a rule costs no recount of point events.
 */

function invalid(rule: AudienceRule, expected: string): ApiError {
  return new ApiError(notificationsErrors.INVALID_AUDIENCE, { message: `${rule.field} ${rule.operator} takes "value": ${expected}.` });
}

/** `value`: a signed decimal with at most two decimals (number or string), as hundredths. */
function pointsValue(rule: AudienceRule): number {
  const hundredths = parseHundredths(rule.value);
  if (hundredths === null) throw invalid(rule, 'a decimal with at most two decimals, such as "12.50"');
  return hundredths;
}

/** `value`: a whole rank from 1 (number or digit string). */
function rankValue(rule: AudienceRule): number {
  const value = rule.value;
  const rank = typeof value === "number" ? value : typeof value === "string" && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(rank) || rank < 1) throw invalid(rule, "a whole rank from 1");
  return rank;
}

const total = (at: CompileContext) => schoolTotalSql(at.tenantId, sql`u.id`);
const rank = (at: CompileContext) => schoolRankForSql(at.tenantId, sql`u.id`, total(at));

registerAudienceField("points_total", {
  operators: {
    gte: (rule, at) => sql`${total(at)} >= ${pointsValue(rule)}`,
    lte: (rule, at) => sql`${total(at)} <= ${pointsValue(rule)}`,
  },
});

registerAudienceField("rank", {
  operators: {
    gte: (rule, at) => sql`${rank(at)} >= ${rankValue(rule)}`,
    lte: (rule, at) => sql`${rank(at)} <= ${rankValue(rule)}`,
  },
});
