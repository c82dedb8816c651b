import { shardDb, shardNames } from "../../core/db/client";
import type { ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso, isoOrNull } from "../../core/lib/clock";
import { canonicalCode, groupCode, shardOfCode } from "./code";
import { certificatesErrors as e } from "./errors";

/**
 * The public check of a code (05 section 4, docs/decisions/certificates.md, "Verification"): no
 * token, no school. The code hashes to its shard, so it is one D1 read by the code's unique index.
 * Unknown and malformed codes answer the same 404, so the answer tells nothing about which codes
 * exist beyond the one asked for.
 */

interface VerifyRow {
  code: string;
  title: string;
  course_title: string;
  holder_first_name: string;
  holder_last_name: string;
  school_name: string;
  issued_at: number;
  revoked_at: number | null;
}

/** First name and the initial of the last name: a stranger checking a code learns no more. */
function shortName(first: string, last: string): string {
  const initial = Array.from(last.trim())[0];
  return initial ? `${first} ${initial}.` : first;
}

export async function verifyCertificate(ctx: ServiceContext, input: { code: string }) {
  const code = canonicalCode(input.code);
  const shard = code === null ? null : await shardOfCode(code);
  if (code === null || shard === null || !shardNames(ctx.env).includes(shard)) throw new ApiError(e.CERTIFICATE_NOT_FOUND);
  const row = await shardDb(ctx.env, shard)
    .$client.prepare(
      "SELECT code, title, course_title, holder_first_name, holder_last_name, school_name, issued_at, revoked_at FROM certificates WHERE code = ?",
    )
    .bind(code)
    .first<VerifyRow>();
  if (!row) throw new ApiError(e.CERTIFICATE_NOT_FOUND);
  return {
    valid: row.revoked_at === null,
    status: row.revoked_at === null ? ("valid" as const) : ("revoked" as const),
    code: groupCode(row.code),
    holder_name: shortName(row.holder_first_name, row.holder_last_name),
    course_title: row.course_title,
    title: row.title,
    school_name: row.school_name,
    issued_at: iso(row.issued_at),
    revoked_at: isoOrNull(row.revoked_at),
  };
}
