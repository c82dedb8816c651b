import type { ServiceContext } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import type { mediaAssets } from "../../db/schema";
import { MEDIA_LINK_TTL_SECONDS, mediaUrl } from "./links";

type AssetRow = typeof mediaAssets.$inferSelect;

/**
 * A media asset as clients read it. A confirmed asset carries a fresh signed link and how long it
 * lasts; any other has an empty `presigned_url` and `expires_in` 0.
 */
export async function presentAsset(ctx: Pick<ServiceContext, "clock" | "config" | "publicOrigin">, row: AssetRow) {
  const confirmed = row.status === "confirmed";
  return {
    id: row.id,
    kind: row.kind,
    filename: row.filename,
    size: row.sizeBytes,
    mime: row.mime,
    status: row.status,
    duration_seconds: row.durationSeconds,
    total_pages: row.totalPages,
    presigned_url: confirmed ? ((await mediaUrl(ctx, row.tenantId, row.id)) ?? "") : "",
    expires_in: confirmed ? MEDIA_LINK_TTL_SECONDS : 0,
    created_at: iso(row.createdAt),
  };
}
