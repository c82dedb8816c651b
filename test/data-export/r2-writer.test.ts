import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { R2ObjectWriter } from "../../src/platform/data-export/r2-writer";
import { uuidv7 } from "../../src/core/lib/ids";

describe("R2ObjectWriter", () => {
  it("a document larger than a part goes up as a multipart upload of equal 5 MiB parts and the rest", async () => {
    const key = `test/${uuidv7()}.json`;
    const writer = new R2ObjectWriter(env.MEDIA, key, "application/json");
    const piece = `"${"ж".repeat(50_000)}",`; // multibyte: the parts are cut by bytes, not characters
    let expected = "";
    await writer.write("[");
    for (let i = 0; i < 120; i += 1) {
      await writer.write(piece);
      expected += piece;
    }
    await writer.write('"end"]');
    const size = await writer.close();
    const text = `[${expected}"end"]`;
    expect(size).toBe(new TextEncoder().encode(text).byteLength);
    expect(size).toBeGreaterThan(2 * 5 * 1024 * 1024);
    const object = await env.MEDIA.get(key);
    expect(object!.size).toBe(size);
    expect(object!.httpMetadata?.contentType).toBe("application/json");
    expect(await object!.text()).toBe(text);
  });

  it("a small document is one put", async () => {
    const key = `test/${uuidv7()}.json`;
    const writer = new R2ObjectWriter(env.MEDIA, key, "application/json");
    await writer.write("{");
    await writer.write("}");
    expect(await writer.close()).toBe(2);
    expect(await (await env.MEDIA.get(key))!.text()).toBe("{}");
  });
});
