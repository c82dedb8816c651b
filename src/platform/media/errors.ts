import { errorCatalogue } from "../../core/http/errors";

/**
 * Failures of the media flow: presign, confirm and read (the contract's identifiers), then the
 * project's own upload and download endpoints (the signed form and the signed link).
 */
export const mediaErrors = errorCatalogue({
  INVALID_KIND: [400, "invalid_kind", "kind must be one of video, image, pdf, document."],
  OVERSIZE_CAP: [400, "oversize_cap", "The file is larger than this kind of file may be."],
  STORAGE_QUOTA_EXCEEDED: [400, "storage_quota_exceeded", "The school's storage quota has no room for this file."],
  /** The school was deleted between authentication and the write. */
  TENANT_NOT_FOUND: [404, "tenant_not_found", "No such school."],
  CONFIRM_FAILED: [400, "confirm_failed", "No uploaded file was found for this asset."],
  MIME_MISMATCH: [400, "mime_mismatch", "The file's content does not match its kind."],
  MEDIA_NOT_FOUND: [404, "media_not_found", "No such media asset."],
  MEDIA_NOT_CONFIRMED: [409, "media_not_confirmed", "The media asset has not been confirmed."],

  /** The worker upload endpoint (MEDIA_UPLOAD_MODE=worker). */
  INVALID_UPLOAD_FORM: [400, "invalid_upload_form", "The upload must be a multipart form with the presigned fields followed by the file part `file`."],
  UPLOAD_SIGNATURE_INVALID: [403, "upload_signature_invalid", "The upload form's signature does not match its fields."],
  UPLOAD_EXPIRED: [403, "upload_expired", "The upload form has expired; presign again."],
  UPLOAD_SIZE_MISMATCH: [400, "upload_size_mismatch", "The file's size differs from the declared_size given at presign."],
  UPLOAD_NOT_PENDING: [409, "upload_not_pending", "The media asset no longer accepts an upload."],

  /** The signed download link. */
  INVALID_LINK: [403, "invalid_media_link", "The download link is invalid."],
  LINK_EXPIRED: [403, "media_link_expired", "The download link has expired; read the asset again for a fresh one."],
});
