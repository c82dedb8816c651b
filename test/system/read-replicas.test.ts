import { describe, expect, it } from "vitest";
import { api } from "../helpers/http";
import { as, schoolWithAdmin } from "../helpers/users";

/** D1 bookmarks: dash-separated hex words (the local D1 gives them as real D1 does). */
const BOOKMARK = /^[0-9a-f]+(?:-[0-9a-f]+)+$/;

describe("read replicas: the D1 session bookmark travels as X-D1-Bookmark", () => {
  it("a school read and a school write answer with their session's bookmark; platform routes carry none", async () => {
    const { admin } = await schoolWithAdmin();
    const read = await as(admin, "/t/courses");
    expect(read.status).toBe(200);
    expect(read.headers.get("x-d1-bookmark")).toMatch(BOOKMARK);

    const write = await as(admin, "/t/courses", { body: { title: "Bookmarked course", slug: "bookmarked" } });
    expect(write.status).toBe(201);
    expect(write.headers.get("x-d1-bookmark")).toMatch(BOOKMARK);

    const me = await api("/auth/me", { token: admin.token });
    expect(me.status).toBe(200);
    expect(me.headers.get("x-d1-bookmark")).toBeNull();
  });

  it("a read sent with the bookmark of a write sees that write, and its own bookmark is not older", async () => {
    const { admin } = await schoolWithAdmin();
    const write = await as(admin, "/t/courses", { body: { title: "Read my write", slug: "read-my-write" } });
    expect(write.status).toBe(201);
    const bookmark = write.headers.get("x-d1-bookmark")!;
    const read = await as(admin, `/t/courses/${write.body.data.id}`, { headers: { "x-d1-bookmark": bookmark } });
    expect(read.status).toBe(200);
    expect(read.body.data.title).toBe("Read my write");
    // Bookmarks compare as strings in D1's format: a session started at a bookmark is at least there.
    expect(read.headers.get("x-d1-bookmark")! >= bookmark).toBe(true);
  });

  it("ignores a malformed, huge or control-laden bookmark instead of failing the request", async () => {
    const { admin } = await schoolWithAdmin();
    for (const bad of ["not-a-bookmark", "0000-\u00070001", "0".repeat(5000), "first-primary", "00000000-00000001-zz", "-", ""]) {
      const read = await as(admin, "/t/courses", { headers: { "x-d1-bookmark": bad } });
      expect(read.status, JSON.stringify(bad)).toBe(200);
      expect(read.headers.get("x-d1-bookmark")).toMatch(BOOKMARK);
    }
  });

  it("lets browsers send and read the header (CORS)", async () => {
    const preflight = await api("/t/courses", {
      method: "OPTIONS",
      headers: { origin: "http://demo.lms.localhost", "access-control-request-method": "GET", "access-control-request-headers": "x-d1-bookmark" },
    });
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-d1-bookmark");
  });
});
