import { z } from "@hono/zod-openapi";
import type { ErrorDetail } from "../../core/http/errors";
import { ApiError } from "../../core/http/errors";
import { plainText, publicHttpsUrl, uuidField } from "../../core/http/fields";
import { sanitizeRichText } from "../../core/lib/sanitize";
import { BLOCK_TYPES, type BlockType, type MediaKind } from "../../db/schema";
import { coursesErrors } from "./errors";
import { isRefBlockType, REF_PAYLOAD_KEYS } from "./references";

/**
 * The payload of each block type. Unlike every request body of the API, a payload's unknown keys
 * are dropped rather than refused (the contract says so for block payloads): the objects below
 * are not strict, and only the keys they list are stored.
 */

const httpsUrl = publicHttpsUrl();
const optionalTitle = plainText({ max: 255 }).nullish();
const assetId = uuidField;

const PAYLOADS = {
  text: z.object({ html: z.string().max(100_000).transform(sanitizeRichText) }),
  video: z
    .object({ media_asset_id: assetId.optional(), url: httpsUrl.optional() })
    .refine((p) => (p.media_asset_id === undefined) !== (p.url === undefined), "give either media_asset_id (a video of the school) or url (https), not both"),
  image: z.object({ media_asset_id: assetId, caption: plainText({ max: 500, multiline: true }).nullish() }),
  pdf: z.object({ media_asset_id: assetId }),
  file: z.object({ media_asset_id: assetId, title: optionalTitle }),
  embed: z.object({ url: httpsUrl, title: optionalTitle }),
  quiz_ref: z.object({ quiz_id: uuidField }),
  assignment_ref: z.object({ assignment_id: uuidField }),
  exam_ref: z.object({ exam_id: uuidField }),
} satisfies Record<BlockType, z.ZodType>;

/** The media kind a type's `media_asset_id` must have (`any` for files). */
const MEDIA_KINDS: Partial<Record<BlockType, MediaKind | "any">> = { video: "video", image: "image", pdf: "pdf", file: "any" };

/** Completed by `POST /blocks/:id/complete` (the reference types complete through their areas). */
export const MANUAL_BLOCK_TYPES = ["text", "video", "image", "pdf", "file", "embed"] as const satisfies readonly BlockType[];

export interface ValidPayload {
  /** The payload as stored: only the type's keys, null optionals left out, rich text sanitized. */
  payload: Record<string, unknown>;
  /** The object the payload names (media asset, quiz, assignment or exam), stored as `ref_id`. */
  refId: string | null;
  /** The media asset to check, with the kind it must have. */
  media: { kind: MediaKind | "any"; id: string } | null;
}

export function isBlockType(type: string): type is BlockType {
  return (BLOCK_TYPES as readonly string[]).includes(type);
}

/** The type as sent, or 400 `invalid_block_type`. */
export function blockType(type: string): BlockType {
  if (!isBlockType(type)) throw new ApiError(coursesErrors.INVALID_BLOCK_TYPE, { message: `type must be one of ${BLOCK_TYPES.join(", ")}.` });
  return type;
}

/** The payload validated for its type, or 400 `invalid_block_payload` naming what does not fit. */
export function validPayload(type: BlockType, payload: Record<string, unknown>): ValidPayload {
  const parsed = PAYLOADS[type].safeParse(payload);
  if (!parsed.success) {
    const details: ErrorDetail[] = parsed.error.issues.map((issue) => ({
      path: ["payload", ...issue.path.map(String)].join("."),
      message: issue.message,
    }));
    throw new ApiError(coursesErrors.INVALID_BLOCK_PAYLOAD, { message: `${type} payload: ${details[0]!.path}: ${details[0]!.message}`, details });
  }
  const stored = Object.fromEntries(Object.entries(parsed.data as Record<string, unknown>).filter(([, value]) => value !== undefined && value !== null));
  const kind = MEDIA_KINDS[type];
  const mediaId = typeof stored.media_asset_id === "string" ? stored.media_asset_id : null;
  const refId = isRefBlockType(type) ? (stored[REF_PAYLOAD_KEYS[type]] as string) : mediaId;
  return { payload: stored, refId, media: kind && mediaId ? { kind, id: mediaId } : null };
}
