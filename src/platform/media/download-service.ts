import { and, eq, isNull } from "drizzle-orm";
import type { ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { mediaAssets } from "../../db/schema";
import { mediaErrors } from "./errors";
import { inEveryDatabase } from "../../core/db/client";
import { servedInline } from "./inspect";
import { MEDIA_LINK_TTL_SECONDS, verifyMediaLink } from "./links";

/**
 * `Content-Disposition` with the display name: an ASCII fallback (`filename`, quotes and
 * non-ASCII replaced) and the exact name percent-encoded as UTF-8 (`filename*`, RFC 6266/8187),
 * so no name can break out of the header.
 */
export function contentDisposition(type: "inline" | "attachment", filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7E]|["\\%;]/g, "_") || "download";
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** One satisfiable `bytes=` range of a file of `size` bytes; anything else is served whole (a server may ignore Range). */
function byteRange(header: string | null, size: number): { offset: number; length: number } | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === "" && match[2] === "") || size === 0) return null;
  if (match[1] === "") {
    const suffix = Math.min(Number(match[2]), size);
    return suffix > 0 ? { offset: size - suffix, length: suffix } : null;
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  return start <= end && start < size ? { offset: start, length: end - start + 1 } : null;
}

/**
 * GET /media/:id/download?exp&sig: the bytes of a confirmed asset behind a signed link. The link
 * names no school, so the asset is found by id and the signature must match the school that asset
 * belongs to: a link signed for one school never opens another school's asset. A bad signature
 * and a missing asset answer alike (404), an expired link 403. The answer carries the stored MIME
 * type, `nosniff` and a sandbox policy; only recognised images, pdf and video are shown inline,
 * everything else is an attachment.
 */
export async function downloadAsset(ctx: ServiceContext, input: { id: string; exp: number; sig: string; range: string | null }): Promise<Response> {
  const nowSeconds = Math.floor(ctx.clock.now() / 1000);
  if (input.exp < nowSeconds) throw new ApiError(mediaErrors.LINK_EXPIRED);
  // Links are signed for an hour; a later expiry was never issued, whatever its signature.
  if (input.exp > nowSeconds + MEDIA_LINK_TTL_SECONDS) throw new ApiError(mediaErrors.MEDIA_NOT_FOUND);
  // The link names no school, so no shard either: every shard is asked at once (ids are unique).
  const [row] = await inEveryDatabase(ctx.env, (db) =>
    db
      .select()
      .from(mediaAssets)
      .where(and(eq(mediaAssets.id, input.id), eq(mediaAssets.status, "confirmed"), isNull(mediaAssets.deletedAt)))
      .limit(1),
  );
  if (!row || !row.etag || !(await verifyMediaLink(ctx.config, row.tenantId, row.id, input.exp, input.sig))) {
    throw new ApiError(mediaErrors.MEDIA_NOT_FOUND);
  }
  const range = byteRange(input.range, row.sizeBytes);
  const object = await ctx.env.MEDIA.get(row.objectKey, { onlyIf: { etagMatches: row.etag }, ...(range ? { range } : {}) });
  // Missing, or replaced since confirm (the etag no longer matches): the confirmed bytes are gone.
  if (!object || !("body" in object)) throw new ApiError(mediaErrors.MEDIA_NOT_FOUND);
  const headers = new Headers({
    "Content-Type": row.mime,
    "Content-Disposition": contentDisposition(servedInline(row.mime) ? "inline" : "attachment", row.filename),
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox; default-src 'none'",
    "Cache-Control": `private, max-age=${Math.min(input.exp - nowSeconds, MEDIA_LINK_TTL_SECONDS)}`,
    "Accept-Ranges": "bytes",
    ETag: object.httpEtag,
  });
  if (range) {
    headers.set("Content-Range", `bytes ${range.offset}-${range.offset + range.length - 1}/${row.sizeBytes}`);
    headers.set("Content-Length", String(range.length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("Content-Length", String(row.sizeBytes));
  return new Response(object.body, { status: 200, headers });
}
