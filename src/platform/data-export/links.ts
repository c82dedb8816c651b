import type { ServiceContext } from "../../core/http/context";
import { publicLink } from "../../core/http/public-links";
import { labelledSignature, verifyLabelledSignature } from "../media/links";

/** Download links of an export are signed like media links, under their own label, and last an hour. */
export const EXPORT_LINK_TTL_SECONDS = 3600;
const LABEL = "data-export-link";

const message = (tenantId: string, exportId: string, exp: number) => `${tenantId}:${exportId}:${exp}`;

/** A fresh signed link to the file, valid an hour and never past the export's own expiry. */
export async function exportDownloadUrl(ctx: Pick<ServiceContext, "clock" | "config" | "publicOrigin">, tenantId: string, exportId: string, expiresAt: number): Promise<string> {
  const exp = Math.min(Math.floor(ctx.clock.now() / 1000) + EXPORT_LINK_TTL_SECONDS, Math.floor(expiresAt / 1000));
  const sig = await labelledSignature(ctx.config.jwtKeys[0]!.secret, LABEL, message(tenantId, exportId, exp));
  return publicLink(ctx, `/api/v1/data-exports/${exportId}/download?school=${tenantId}&exp=${exp}&sig=${sig}`);
}

export function verifyExportLink(ctx: Pick<ServiceContext, "config">, tenantId: string, exportId: string, exp: number, signature: string): Promise<boolean> {
  return verifyLabelledSignature(ctx.config, LABEL, message(tenantId, exportId, exp), signature);
}
