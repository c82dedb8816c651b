import { sql } from "drizzle-orm";
import { batchable, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { publicLink } from "../../core/http/public-links";
import { groupCode } from "./code";
import { renderCertificatePdf } from "./pdf";
import { holderName, readCertificate } from "./service";

const PDF_HEADERS = { "Content-Type": "application/pdf", "Cache-Control": "private, no-store" };

/**
 * GET /t/certificates/:id/pdf: rendered on the first request, kept in R2 under `certificates/`
 * (MEDIA bucket) and its key stored on the row; every later request is the stored object. Two
 * first requests at once both render the same bytes; the first key stored wins.
 */
export async function certificatePdf(ctx: SchoolCtx, input: { id: string }): Promise<Response> {
  const row = await readCertificate(ctx, input.id);
  if (row.pdf_key !== null) {
    const stored = await ctx.env.MEDIA.get(row.pdf_key);
    if (stored) return new Response(stored.body, { headers: PDF_HEADERS });
  }
  const code = groupCode(row.code);
  const bytes = await renderCertificatePdf({
    title: row.title,
    holderName: holderName(row),
    courseTitle: row.course_title,
    schoolName: row.school_name,
    issuedAt: row.issued_at,
    code,
    verifyUrl: publicLink(ctx, `/api/v1/verify/${code}`),
  });
  const key = `certificates/${ctx.tenantId}/${row.id}.pdf`;
  await ctx.env.MEDIA.put(key, bytes, { httpMetadata: { contentType: "application/pdf" } });
  await runBatch(ctx, [batchable(ctx, sql`UPDATE certificates SET pdf_key = ${key} WHERE ${inSchool(ctx.tenantId)} AND id = ${row.id} AND pdf_key IS NULL`)]);
  return new Response(bytes, { headers: PDF_HEADERS });
}
