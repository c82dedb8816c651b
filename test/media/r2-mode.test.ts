import { env } from "cloudflare:test";
import { AwsClient } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { ConfigError, getConfig, type Env, type MediaConfig } from "../../src/core/env";
import { toHex } from "../../src/core/lib/crypto";
import { amzDate, presignedPutUrl } from "../../src/platform/media/r2-presign";
import { readResponse } from "../helpers/http";
import { confirm, FIXTURES, mediaSchool } from "./helpers";

const R2_VARS = {
  MEDIA_UPLOAD_MODE: "r2",
  R2_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
  R2_BUCKET_NAME: "lms-media",
  R2_ACCESS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
  R2_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
};

const encoder = new TextEncoder();

async function hmac(key: Uint8Array, message: string): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, encoder.encode(message)));
}

/**
 * SigV4 query signing written out from the AWS specification, independent of aws4fetch: the
 * signature a presigned URL must carry for its method, host, path and query.
 */
async function expectedSignature(method: string, url: URL, secret: string, region: string): Promise<string> {
  const query = [...url.searchParams.entries()]
    .filter(([name]) => name !== "X-Amz-Signature")
    .map(([name, value]) => [encodeURIComponent(name), encodeURIComponent(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  const canonical = [method, url.pathname, query, `host:${url.host}\n`, "host", "UNSIGNED-PAYLOAD"].join("\n");
  const datetime = url.searchParams.get("X-Amz-Date")!;
  const scope = `${datetime.slice(0, 8)}/${region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", datetime, scope, toHex(await crypto.subtle.digest("SHA-256", encoder.encode(canonical)))].join("\n");
  let key = await hmac(encoder.encode(`AWS4${secret}`), datetime.slice(0, 8));
  for (const part of [region, "s3", "aws4_request"]) key = await hmac(key, part);
  return toHex(await hmac(key, toSign));
}

describe("MEDIA_UPLOAD_MODE=r2: presigned PUT URLs", () => {
  it("the signer reproduces AWS's published presigned-URL example", async () => {
    // "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)", example GET of test.txt.
    const client = new AwsClient({ accessKeyId: R2_VARS.R2_ACCESS_KEY_ID, secretAccessKey: R2_VARS.R2_SECRET_ACCESS_KEY, service: "s3", region: "us-east-1" });
    const signed = await client.sign("https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Expires=86400", {
      method: "GET",
      aws: { signQuery: true, datetime: "20130524T000000Z" },
    });
    const url = new URL(signed.url);
    expect(url.searchParams.get("X-Amz-Signature")).toBe("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    expect(await expectedSignature("GET", url, R2_VARS.R2_SECRET_ACCESS_KEY, "us-east-1")).toBe("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
  });

  it("signs a PUT of exactly the object key, for the R2 endpoint, region auto, valid for the given seconds", async () => {
    const config = getConfig({ ...env, ...R2_VARS } as Env).media as Extract<MediaConfig, { uploadMode: "r2" }>;
    const now = Date.UTC(2026, 0, 2, 3, 4, 5);
    const key = "tenant/0190a6c2-1111-7000-8000-000000000001/0190a6c2-2222-7000-8000-000000000002";
    const url = new URL(await presignedPutUrl(config, key, 3600, now));
    expect(url.origin).toBe(`https://${R2_VARS.R2_ACCOUNT_ID}.r2.cloudflarestorage.com`);
    expect(url.pathname).toBe(`/lms-media/${key}`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
      "X-Amz-Credential": `${R2_VARS.R2_ACCESS_KEY_ID}/20260102/auto/s3/aws4_request`,
      "X-Amz-Date": "20260102T030405Z",
      "X-Amz-Expires": "3600",
      "X-Amz-SignedHeaders": "host",
      "X-Amz-Signature": expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(url.searchParams.get("X-Amz-Signature")).toBe(await expectedSignature("PUT", url, R2_VARS.R2_SECRET_ACCESS_KEY, "auto"));
    // The signature covers method, key and expiry: none can be changed without breaking it.
    const asGet = await expectedSignature("GET", url, R2_VARS.R2_SECRET_ACCESS_KEY, "auto");
    expect(asGet).not.toBe(url.searchParams.get("X-Amz-Signature"));
    const longer = new URL(url);
    longer.searchParams.set("X-Amz-Expires", "604800");
    expect(await expectedSignature("PUT", longer, R2_VARS.R2_SECRET_ACCESS_KEY, "auto")).not.toBe(url.searchParams.get("X-Amz-Signature"));
    expect(amzDate(now)).toBe("20260102T030405Z");
  });

  it("POST /t/media/presign answers a PUT URL and no form fields; confirm then checks the object like any other", async () => {
    const { school, student } = await mediaSchool();
    const r2Env = { ...env, ...R2_VARS };
    const path = "/api/v1/t/media/presign";
    const before = Math.floor(Date.now() / 1000);
    const response = await app.request(
      `https://api.lms.localhost${path}`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${student.token}`, "x-tenant-subdomain": school.subdomain, "content-type": "application/json" },
        body: JSON.stringify({ kind: "image", filename: "a.png", declared_size: FIXTURES.png.length, declared_mime: "image/png" }),
      },
      r2Env,
    );
    const res = await readResponse(response, { method: "POST", path });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ upload_method: "PUT", form_data: {}, expires_in: 3600, object_key: `tenant/${school.id}/${data.media_asset_id}` });
    const url = new URL(data.upload_url);
    expect(url.pathname).toBe(`/lms-media/${data.object_key}`);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    const signedAt = Date.parse(url.searchParams.get("X-Amz-Date")!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z")) / 1000;
    expect(signedAt).toBeGreaterThanOrEqual(before - 1);
    expect(url.searchParams.get("X-Amz-Signature")).toBe(await expectedSignature("PUT", url, R2_VARS.R2_SECRET_ACCESS_KEY, "auto"));
    // The local R2 does not serve S3 URLs: put the object as R2 would on that PUT, then confirm.
    await env.MEDIA.put(data.object_key, FIXTURES.png);
    expect((await confirm(student, data.media_asset_id)).status).toBe(200);
  });

  it("refuses to start in r2 mode without its settings, and an unknown mode", () => {
    expect(() => getConfig({ ...env, MEDIA_UPLOAD_MODE: "r2" } as Env)).toThrow(ConfigError);
    expect(() => getConfig({ ...env, ...R2_VARS, R2_SECRET_ACCESS_KEY: "" } as Env)).toThrow(/R2_SECRET_ACCESS_KEY/);
    expect(() => getConfig({ ...env, MEDIA_UPLOAD_MODE: "s3" } as Env)).toThrow(/MEDIA_UPLOAD_MODE/);
    expect(getConfig({ ...env, ...R2_VARS, R2_ACCOUNT_ID: "", R2_S3_ENDPOINT: "https://eu.example.r2.cloudflarestorage.com/" } as Env).media).toMatchObject({
      s3Endpoint: "https://eu.example.r2.cloudflarestorage.com",
    });
  });
});
