import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { getConfig, type Env } from "../../src/core/env";
import { insertCourseTree } from "../helpers/courses";
import { readResponse, type ApiResponse } from "../helpers/http";
import { as, type Member } from "../helpers/users";
import { mediaSchool, storedImage } from "./helpers";

/**
 * Every link the API returns (upload form, signed downloads of assets, avatars, logos, block and
 * cover `url`s) is absolute and built on PUBLIC_API_ORIGIN when it is configured, so a request
 * that reaches the Worker under another `Host` cannot steer links to a host of its choosing.
 * Only without the setting (local development) do links take the request's own origin.
 */

const CONFIGURED = "https://api.school-cloud.example";

/** Calls the Worker as `https://<host>` (the Host the request arrived with), with `vars` on top of the test bindings. */
async function call(member: Member, host: string, path: string, options: { method?: string; body?: unknown; vars?: Partial<Env> } = {}): Promise<ApiResponse> {
  const method = options.method ?? (options.body === undefined ? "GET" : "POST");
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const init = { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) };
  const url = `https://${host}/api/v1${path}`;
  const response = options.vars ? await app.request(url, init, { ...env, ...options.vars }) : await SELF.fetch(url, init);
  return readResponse(response, { method, path: `/api/v1${path}` });
}

/** Every link a school's reads return, by where it came from. */
async function linksOf(member: Member, host: string, vars?: Partial<Env>) {
  const image = await storedImage(member.tenantId);
  const tree = await insertCourseTree(member.tenantId, { shape: [1, 1, 1], blockType: "image", payload: { media_asset_id: image }, refId: image });
  const presign = await call(member, host, "/t/media/presign", { body: { kind: "image", filename: "a.png", declared_size: 10, declared_mime: "image/png" }, vars });
  const asset = await call(member, host, `/t/media/${image}`, { vars });
  const avatar = await call(member, host, "/t/me/profile", { method: "PATCH", body: { avatar: image }, vars });
  const logo = await call(member, host, "/t/tenant", { method: "PATCH", body: { logo: image }, vars });
  const cover = await call(member, host, `/t/courses/${tree.courseId}/cover-image`, { method: "PATCH", body: { cover_image_id: image }, vars });
  const course = await call(member, host, `/t/courses/${tree.courseId}`, { vars });
  const block = await call(member, host, `/t/blocks/${tree.blockIds[0]}`, { vars });
  for (const res of [presign, asset, avatar, logo, cover, course, block]) expect(res.status, JSON.stringify(res.body)).toBe(200);
  return {
    image,
    links: {
      upload_url: presign.body.data.upload_url as string,
      presigned_url: asset.body.data.presigned_url as string,
      avatar: avatar.body.data.avatar as string,
      logo: logo.body.data.logo as string,
      cover_image_url: course.body.data.cover_image_url as string,
      block_url: block.body.data.url as string,
    },
  };
}

const signed = (origin: string, id: string) => new RegExp(`^${origin.replaceAll(".", "\\.")}/api/v1/media/${id}/download\\?exp=\\d+&sig=[0-9a-f]{64}$`);

describe("links the API returns", () => {
  it("are absolute on PUBLIC_API_ORIGIN when it is configured, whatever Host the request came with", async () => {
    const { admin } = await mediaSchool();
    const { image, links } = await linksOf(admin, "evil.attacker.example", { PUBLIC_API_ORIGIN: CONFIGURED });
    expect(links).toEqual({
      upload_url: expect.stringMatching(new RegExp(`^https://api\\.school-cloud\\.example/api/v1/media/[0-9a-f-]{36}/upload$`)),
      presigned_url: expect.stringMatching(signed(CONFIGURED, image)),
      avatar: expect.stringMatching(signed(CONFIGURED, image)),
      logo: expect.stringMatching(signed(CONFIGURED, image)),
      cover_image_url: expect.stringMatching(signed(CONFIGURED, image)),
      block_url: expect.stringMatching(signed(CONFIGURED, image)),
    });
    // The link works where it points: the configured origin is this Worker.
    const download = await SELF.fetch(links.presigned_url.replace(CONFIGURED, "https://api.lms.localhost"));
    expect(download.status).toBe(200);
    await download.body?.cancel();
  });

  it("are absolute on the request's own origin when no public origin is configured (local development)", async () => {
    const { admin } = await mediaSchool();
    const { image, links } = await linksOf(admin, "localhost:8787");
    const origin = "https://localhost:8787";
    expect(links).toEqual({
      upload_url: expect.stringMatching(new RegExp(`^https://localhost:8787/api/v1/media/[0-9a-f-]{36}/upload$`)),
      presigned_url: expect.stringMatching(signed(origin, image)),
      avatar: expect.stringMatching(signed(origin, image)),
      logo: expect.stringMatching(signed(origin, image)),
      cover_image_url: expect.stringMatching(signed(origin, image)),
      block_url: expect.stringMatching(signed(origin, image)),
    });
  });

  it("a lesson's read carries its blocks' links absolute", async () => {
    const { admin } = await mediaSchool();
    const image = await storedImage(admin.tenantId);
    const tree = await insertCourseTree(admin.tenantId, { shape: [1, 1, 1], blockType: "image", payload: { media_asset_id: image }, refId: image });
    const lesson = await as(admin, `/t/lessons/${tree.lessonIds[0]}`);
    expect(lesson.status, JSON.stringify(lesson.body)).toBe(200);
    expect(lesson.body.data.blocks[0].url).toMatch(signed("https://api.lms.localhost", image));
  });

  it("PUBLIC_API_ORIGIN must be an origin alone: a path, query, credentials or another scheme stop the Worker from starting", () => {
    for (const value of ["https://api.example.com/v1", "https://api.example.com?x=1", "https://user@api.example.com", "ftp://api.example.com", "api.example.com"]) {
      expect(() => getConfig({ ...env, PUBLIC_API_ORIGIN: value } as Env), value).toThrow(/PUBLIC_API_ORIGIN/);
    }
    expect(getConfig({ ...env, PUBLIC_API_ORIGIN: "https://API.example.com/" } as Env).publicApiOrigin).toBe("https://api.example.com");
    expect(getConfig({ ...env, PUBLIC_API_ORIGIN: "" } as Env).publicApiOrigin).toBeNull();
  });
});
