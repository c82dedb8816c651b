import type { MediaKind } from "../../db/schema";

const MIB = 1024 * 1024;

/** Size caps per kind (binary megabytes): the contract's defaults. Checked on the declared size at presign and on the real size at confirm. */
export const KIND_CAPS: Record<MediaKind, number> = {
  video: 500 * MIB,
  image: 50 * MIB,
  pdf: 200 * MIB,
  document: 50 * MIB,
};

/** How long an upload form or presigned PUT URL stays usable. */
export const UPLOAD_TTL_SECONDS = 3600;

/** An asset still pending this long after presign is failed by the cron and its object removed. */
export const PENDING_DEADLINE_MS = 24 * 3_600_000;

/** Where an asset's bytes live in R2: the school and the asset id, never the filename. */
export function objectKey(tenantId: string, assetId: string): string {
  return `tenant/${tenantId}/${assetId}`;
}
