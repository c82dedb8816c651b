import type { Config } from "../../core/env";
import { isUuid } from "../../core/lib/ids";
import { labelledSignature, verifyLabelledSignature } from "./links";

const LABEL = "media-upload";

/** What the signed form carries besides the file: the school, the exact size and the deadline. */
export interface UploadGrant {
  tenantId: string;
  assetId: string;
  size: number;
  /** Unix seconds. */
  expires: number;
}

const message = (grant: UploadGrant) => `${grant.tenantId}:${grant.assetId}:${grant.size}:${grant.expires}`;

/** The `form_data` of a worker-mode presign: fields a browser posts, in this order, before the `file` part. */
export async function signUploadForm(config: Config, grant: UploadGrant): Promise<Record<string, string>> {
  return {
    tenant_id: grant.tenantId,
    size: String(grant.size),
    expires: String(grant.expires),
    signature: await labelledSignature(config.jwtKeys[0]!.secret, LABEL, message(grant)),
  };
}

export type FormCheck = { ok: true; grant: UploadGrant } | { ok: false; reason: "malformed" | "signature" };

/** Reads and verifies the posted fields for the asset in the path. Expiry is the caller's to judge. */
export async function verifyUploadForm(config: Config, assetId: string, fields: ReadonlyMap<string, string>): Promise<FormCheck> {
  const tenantId = fields.get("tenant_id") ?? "";
  const size = fields.get("size") ?? "";
  const expires = fields.get("expires") ?? "";
  const signature = fields.get("signature") ?? "";
  if (!isUuid(tenantId) || !/^[1-9][0-9]{0,15}$/.test(size) || !/^[0-9]{1,12}$/.test(expires) || !/^[0-9a-fA-F]{64}$/.test(signature)) {
    return { ok: false, reason: "malformed" };
  }
  const grant: UploadGrant = { tenantId: tenantId.toLowerCase(), assetId, size: Number(size), expires: Number(expires) };
  // The signed text is rebuilt from the parsed numbers, so "0100" and "100" cannot both verify.
  if (String(grant.size) !== size || String(grant.expires) !== expires) return { ok: false, reason: "malformed" };
  if (!(await verifyLabelledSignature(config, LABEL, message(grant), signature))) return { ok: false, reason: "signature" };
  return { ok: true, grant };
}
