import type { MediaKind } from "../../db/schema";

/** Bytes read from the start of an object to recognise its type (zip-based office files need a few KB). */
export const SNIFF_BYTES = 64 * 1024;

/**
 * Raster image formats cameras, phones and browsers produce. SVG is not among them (it is a
 * document that can carry script), and the detector never reports HTML or script as an image.
 */
const IMAGE_TYPES = new Set([
  "image/jpeg",
  "image/png",
  "image/apng",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/heic",
  "image/heif",
  "image/bmp",
  "image/tiff",
  "image/jxl",
]);

const PDF_TYPE = "application/pdf";

const TEXT_TYPE = /^text\/[a-z0-9][a-z0-9!#$&^_.+-]{0,100}$/;

/** The MIME types a download may show inline: recognised images, pdf and video. Everything else is an attachment. */
export function servedInline(mime: string): boolean {
  return IMAGE_TYPES.has(mime) || mime === PDF_TYPE || mime.startsWith("video/");
}

export type Verdict = { accepted: true; mime: string } | { accepted: false; detected: string | null };

/**
 * Whether the file's first bytes fit the declared kind, and the MIME type to store. The type
 * comes from the content (magic bytes), never from the client. A document may be anything: when
 * the detector recognises nothing (plain text, CSV, HTML), a declared `text/*` type is kept and
 * anything else is stored as `application/octet-stream`; documents are always downloaded as
 * attachments under a sandbox policy, so a stored `text/html` cannot run.
 */
export async function inspectContent(kind: MediaKind, head: Uint8Array, declaredMime: string): Promise<Verdict> {
  // Loaded on first use: its zip support pulls in a Node-only logger that would break the OpenAPI
  // script, which loads the app in Node and never inspects a file.
  const { fileTypeFromBuffer } = await import("file-type");
  const detected = (await fileTypeFromBuffer(head))?.mime ?? null;
  switch (kind) {
    case "image":
      return detected && IMAGE_TYPES.has(detected) ? { accepted: true, mime: detected } : { accepted: false, detected };
    case "pdf":
      return detected === PDF_TYPE ? { accepted: true, mime: detected } : { accepted: false, detected };
    case "video":
      return detected?.startsWith("video/") ? { accepted: true, mime: detected } : { accepted: false, detected };
    case "document": {
      if (detected) return { accepted: true, mime: detected };
      const declared = declaredMime.trim().toLowerCase();
      return { accepted: true, mime: TEXT_TYPE.test(declared) ? declared : "application/octet-stream" };
    }
  }
}
