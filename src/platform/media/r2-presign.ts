import { AwsClient } from "aws4fetch";
import type { MediaConfig } from "../../core/env";

type R2Config = Extract<MediaConfig, { uploadMode: "r2" }>;

const clients = new WeakMap<R2Config, AwsClient>();

function client(config: R2Config): AwsClient {
  let found = clients.get(config);
  if (!found) {
    // R2's S3 API takes the region "auto"; the service name must be "s3" for SigV4 to match.
    found = new AwsClient({ accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey, service: "s3", region: "auto" });
    clients.set(config, found);
  }
  return found;
}

/** SigV4's timestamp form: `20260101T120000Z`. */
export function amzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[:-]|\.\d{3}/g, "");
}

/**
 * A presigned S3 PUT URL for one object of the bucket, valid `expiresIn` seconds from `now`
 * (SigV4 query signing by aws4fetch; the payload is unsigned, so the client streams the file as
 * it is). The key holds only path-safe characters (`tenant/<uuid>/<uuid>`).
 */
export async function presignedPutUrl(config: R2Config, key: string, expiresIn: number, now: number): Promise<string> {
  const url = new URL(`${config.s3Endpoint}/${config.bucket}/${key}`);
  url.searchParams.set("X-Amz-Expires", String(expiresIn));
  const signed = await client(config).sign(url.toString(), { method: "PUT", aws: { signQuery: true, datetime: amzDate(now) } });
  return signed.url;
}
