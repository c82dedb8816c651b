import { and, eq, inArray, isNull } from "drizzle-orm";
import type { ServiceContext } from "../../core/http/context";
import { ApiError, type ErrorEntry } from "../../core/http/errors";
import { isUuid } from "../../core/lib/ids";
import { mediaAssets, type MediaKind } from "../../db/schema";
import { inSchool } from "../../core/db/conditions";

/** Ids per check: they travel as bound parameters (D1 takes 100 per statement). */
const MAX_IDS = 90;

export interface AssetRefCheck {
  /** Within the school: the school the reference is stored for. */
  tenantId: string;
  /** The body field, for the failure's message and details (`avatar`, `logo`, `attachment_ids`). */
  field: string;
  /** The value as validated by the schema: URLs pass as they are, asset ids are checked; null and undefined are nothing to check. */
  value: string | null | undefined | readonly (string | null | undefined)[];
  /** The endpoint's own validation identifier. */
  invalid: ErrorEntry;
}

/**
 * The check every area runs before storing a media reference (avatars, logos, covers, question
 * images, attachments): an asset id must name a confirmed, live asset of the same school and of
 * the kind the field takes (`any` for attachments). It reads D1, so it belongs in the service,
 * not in a schema. Reads turn the stored reference into a link with `mediaUrl` (./links.ts).
 *
 *   await assetRef("image").check(ctx, { tenantId, field: "avatar", value: body.avatar, invalid })
 */
export function assetRef(kind: MediaKind | "any") {
  return {
    kind,
    async check(ctx: Pick<ServiceContext, "db">, input: AssetRefCheck): Promise<void> {
      const values = (Array.isArray(input.value) ? input.value : [input.value]) as (string | null | undefined)[];
      const ids = [...new Set(values.filter(isUuid).map((id) => id.toLowerCase()))];
      if (ids.length === 0) return;
      const what = kind === "any" ? "a confirmed media asset" : `a confirmed ${kind}`;
      const refuse = () => {
        const message = `must be ${what} of this school`;
        return new ApiError(input.invalid, { message: `${input.field}: ${message}`, details: [{ path: input.field, message }] });
      };
      if (ids.length > MAX_IDS) throw refuse();
      const found = await ctx.db
        .select({ id: mediaAssets.id })
        .from(mediaAssets)
        .where(
          and(
            inSchool(mediaAssets, input.tenantId),
            inArray(mediaAssets.id, ids),
            eq(mediaAssets.status, "confirmed"),
            isNull(mediaAssets.deletedAt),
            kind === "any" ? undefined : eq(mediaAssets.kind, kind),
          ),
        );
      if (found.length !== ids.length) throw refuse();
    },
  };
}

/** Avatars and logos: confirmed images. */
export const imageRef = assetRef("image");
