import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { superadminToken } from "../helpers/billing";
import { insertCourseTree } from "../helpers/courses";
import { createUser, db } from "../helpers/factories";
import { api, failure, type ApiResponse } from "../helpers/http";
import { as, createGroup, schoolWithAdmin, signedIn } from "../helpers/users";

/**
 * Every URL a client gives us to store (embeds, videos, logos, avatars) goes through one rule:
 * parsed by the WHATWG parser and stored as it serializes; https only, no credentials, a public
 * DNS host (no IP literal in any spelling, no single label, no local or internal name), no
 * control, bidi or markup characters. Anything else is the route's 400 with details.
 */

const HOSTILE = [
  'https://example.com/"><script>alert(1)</script>',
  "https://example.com/a<b>c",
  "http://169.254.169.254/latest/meta-data/",
  "https://169.254.169.254/latest/meta-data/",
  "https://127.0.0.1/",
  "https://[::1]/",
  "https://[fd00::1]/x",
  "https://user:pass@example.com/",
  "https://user@example.com/",
  "https://localhost/",
  "https://api.localhost/",
  "https://LOCALHOST./",
  "https://10.0.0.1/",
  "https://192.168.1.1/admin",
  "https://0x7f000001/",
  "https://2130706433/",
  "https://0177.0.0.1/",
  "https://intranet/",
  "https://printer.local/",
  "https://metadata.google.internal/",
  "https://example.com/\u202Egnp.exe",
  "https://example.com/a\u2066b",
  "https://example.com/a\u0001b",
  "https://example.com/a\u0085b",
  "https://example.com\\@evil.com/",
  "javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "http://example.com/",
  "//example.com/a.png",
  "not a url",
];

const VALID = { sent: "https://EXAMPLE.com/a b?x=1#top", stored: "https://example.com/a%20b?x=1#top" };

interface Target {
  name: string;
  error: string;
  /** The path of the offending value in `details`. */
  detail: string;
  setup: () => Promise<{ send: (url: string) => Promise<ApiResponse>; stored: () => Promise<unknown> }>;
}

async function blockRow(id: string) {
  const [row] = await db().select().from(schema.blocks).where(eq(schema.blocks.id, id));
  return row!.payload as Record<string, unknown>;
}

/** A block of `type` created in a fresh lesson with the URL in its payload. */
function blockCreate(type: "embed" | "video", payload: (url: string) => Record<string, unknown>): Target {
  return {
    name: `POST /t/lessons/:id/blocks ${type} url`,
    error: "invalid_block_payload",
    detail: "payload.url",
    setup: async () => {
      const { school, admin } = await schoolWithAdmin();
      const tree = await insertCourseTree(school.id, { shape: [1, 1, 0] });
      let created = "";
      return {
        send: async (url) => {
          const res = await as(admin, `/t/lessons/${tree.lessonIds[0]}/blocks`, { body: { type, payload: payload(url) } });
          if (res.status === 201) created = res.body.data.id;
          return res;
        },
        stored: async () => (await blockRow(created)).url,
      };
    },
  };
}

const TARGETS: Target[] = [
  blockCreate("embed", (url) => ({ url, title: "Frame" })),
  blockCreate("video", (url) => ({ url })),
  {
    name: "PATCH /t/blocks/:id embed url",
    error: "invalid_block_payload",
    detail: "payload.url",
    setup: async () => {
      const { school, admin } = await schoolWithAdmin();
      const tree = await insertCourseTree(school.id, { shape: [1, 1, 1], blockType: "embed", payload: { url: "https://example.com/first" } });
      const id = tree.blockIds[0]!;
      return { send: (url) => as(admin, `/t/blocks/${id}`, { method: "PATCH", body: { payload: { url } } }), stored: async () => (await blockRow(id)).url };
    },
  },
  {
    name: "PATCH /t/tenant logo",
    error: "validation error",
    detail: "logo",
    setup: async () => {
      const { school, admin } = await schoolWithAdmin();
      return { send: (logo) => as(admin, "/t/tenant", { method: "PATCH", body: { logo } }), stored: () => tenantLogo(school.id) };
    },
  },
  {
    name: "POST /admin/tenants/ logo",
    error: "validation error",
    detail: "logo",
    setup: async () => {
      const token = await superadminToken();
      let created = "";
      return {
        send: async (logo) => {
          const name = `u${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;
          const res = await api("/admin/tenants/", { token, body: { title: "Url School", slug: name, subdomain: name, logo } });
          if (res.status === 201) created = res.body.data.id;
          return res;
        },
        stored: () => tenantLogo(created),
      };
    },
  },
  {
    name: "PUT /admin/tenants/:id logo",
    error: "validation error",
    detail: "logo",
    setup: async () => {
      const token = await superadminToken();
      const { school } = await schoolWithAdmin();
      return { send: (logo) => api(`/admin/tenants/${school.id}`, { method: "PUT", token, body: { logo } }), stored: () => tenantLogo(school.id) };
    },
  },
  {
    name: "PUT /t/users/:id avatar",
    error: "invalid_request_body",
    detail: "avatar",
    setup: async () => {
      const { school, admin } = await schoolWithAdmin();
      const student = await createUser(school.id, { role: "student" });
      return { send: (avatar) => as(admin, `/t/users/${student.id}`, { method: "PUT", body: { avatar } }), stored: () => userAvatar(student.id) };
    },
  },
  {
    name: "PATCH /t/me/profile avatar",
    error: "invalid_request_body",
    detail: "avatar",
    setup: async () => {
      const { school } = await schoolWithAdmin();
      const student = await signedIn(school, { role: "student" });
      return { send: (avatar) => as(student, "/t/me/profile", { method: "PATCH", body: { avatar } }), stored: () => userAvatar(student.id) };
    },
  },
  {
    name: "POST /t/groups logo",
    error: "invalid_request_body",
    detail: "logo",
    setup: async () => {
      const { admin } = await schoolWithAdmin();
      let created = "";
      return {
        send: async (logo) => {
          const res = await as(admin, "/t/groups", { body: { name: "Url group", logo } });
          if (res.status === 201) created = res.body.data.id;
          return res;
        },
        stored: () => groupLogo(created),
      };
    },
  },
  {
    name: "PATCH /t/groups/:id logo",
    error: "invalid_request_body",
    detail: "logo",
    setup: async () => {
      const { school, admin } = await schoolWithAdmin();
      const group = await createGroup(school.id, { name: "Url group" });
      return { send: (logo) => as(admin, `/t/groups/${group.id}`, { method: "PATCH", body: { logo } }), stored: () => groupLogo(group.id) };
    },
  },
];

async function tenantLogo(id: string) {
  const [row] = await db().select({ logo: schema.tenants.logo }).from(schema.tenants).where(eq(schema.tenants.id, id));
  return row?.logo;
}

async function userAvatar(id: string) {
  const [row] = await db().select({ avatar: schema.users.avatar }).from(schema.users).where(eq(schema.users.id, id));
  return row?.avatar;
}

async function groupLogo(id: string) {
  const [row] = await db().select({ logo: schema.groups.logo }).from(schema.groups).where(eq(schema.groups.id, id));
  return row?.logo;
}

describe("URLs given to store follow the one URL rule", () => {
  for (const target of TARGETS) {
    it(`${target.name}: 400 \`${target.error}\` with details for every hostile URL; a valid one is stored re-serialized`, async () => {
      const { send, stored } = await target.setup();
      const answers: unknown[] = [];
      for (const url of HOSTILE) {
        const res = await send(url);
        const details = (res.body?.details ?? []) as { path: string; message: string }[];
        answers.push({ url, status: res.status, error: res.body?.error, detailPaths: details.map((detail) => detail.path) });
      }
      expect(answers).toEqual(HOSTILE.map((url) => ({ url, status: 400, error: target.error, detailPaths: [target.detail] })));
      const accepted = await send(VALID.sent);
      expect(accepted.status, JSON.stringify(accepted.body)).toBeLessThan(300);
      expect(await stored()).toBe(VALID.stored);
      expect(failure(await send(HOSTILE[0]!))).toEqual({ status: 400, error: target.error });
    });
  }
});
