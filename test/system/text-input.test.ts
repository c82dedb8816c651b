import { beforeAll, describe, expect, it } from "vitest";
import { createSchool, createUser, login } from "../helpers/factories";
import { api, failure, type ApiResponse } from "../helpers/http";
import { as, schoolWithAdmin, signedIn, type Member } from "../helpers/users";

/** NUL, BEL, a C1 control (NEL) and a right-to-left override: each makes a name display as something else. */
const HOSTILE = [
  ["NUL", "\u0000"],
  ["BEL", "\u0007"],
  ["C1 NEL", "\u0085"],
  ["RLO", "\u202E"],
] as const;

/** Ordinary names in scripts beyond Latin, which must pass (and be stored trimmed). */
const CYRILLIC = "Дилноза";
const ARABIC = "مريم";

let seq = 0;
const unique = () => `t${Date.now().toString(36)}${seq++}${Math.floor(Math.random() * 1e4)}`;

/** One representative field of an area: how to send a value in it, and the endpoint's body identifier. */
interface Field {
  name: string;
  identifier: string;
  send(value: string): Promise<ApiResponse>;
  /** Reads back what a successful call stored in the field. */
  stored(res: ApiResponse): unknown;
}

describe("names, titles and device names refuse control and bidi characters", () => {
  let admin: Member;
  let superadmin: string;
  let target: Member;

  beforeAll(async () => {
    ({ admin } = await schoolWithAdmin());
    target = await signedIn({ id: admin.tenantId, subdomain: admin.subdomain }, { role: "student" });
    superadmin = (await login(await createUser(null, { role: "superadmin" }))).token;
  });

  const registration = (overrides: Record<string, string>) => {
    const slug = unique();
    return { tenant_title: "Registered School", tenant_slug: slug, email: `founder.${slug}@example.test`, password: "founder-pass-1", first_name: "Ann", last_name: "Lee", ...overrides };
  };

  const fields: Field[] = [
    {
      name: "POST /auth/register first_name",
      identifier: "invalid_request_body",
      send: (value) => api("/auth/register", { body: registration({ first_name: value }) }),
      stored: (res) => res.status,
    },
    {
      name: "POST /auth/register last_name",
      identifier: "invalid_request_body",
      send: (value) => api("/auth/register", { body: registration({ last_name: value }) }),
      stored: (res) => res.status,
    },
    {
      name: "POST /auth/register tenant_title",
      identifier: "invalid_request_body",
      send: (value) => api("/auth/register", { body: registration({ tenant_title: `${value} school` }) }),
      stored: (res) => res.status,
    },
    {
      name: "POST /t/users first_name",
      identifier: "invalid_request_body",
      send: (value) =>
        as(admin, "/t/users", { body: { email: `${unique()}@example.test`, password: "a-good-password", first_name: value, last_name: "Lee", role: "student" } }),
      stored: (res) => res.body.data.first_name,
    },
    {
      name: "PUT /t/users/:id last_name",
      identifier: "invalid_request_body",
      send: (value) => as(admin, `/t/users/${target.id}`, { method: "PUT", body: { last_name: ` ${value}  ` } }),
      stored: (res) => res.body.data.last_name,
    },
    {
      name: "PATCH /t/tenant title",
      identifier: "validation error",
      send: (value) => as(admin, "/t/tenant", { method: "PATCH", body: { title: `${value} school` } }),
      stored: (res) => res.body.data.title,
    },
    {
      name: "POST /admin/tariffs title",
      identifier: "validation error",
      send: (value) => api("/admin/tariffs", { body: { title: `${value} ${unique()}`, duration_days: 30 }, token: superadmin }),
      stored: (res) => res.body.data.title,
    },
    {
      name: "POST /auth/login device_name",
      identifier: "invalid_request_body",
      send: (value) =>
        api("/auth/login", { body: { email: target.email, password: target.password, subdomain: target.subdomain, device_platform: "android", device_name: value } }),
      stored: (res) => res.status,
    },
  ];

  for (const field of fields) {
    it(`${field.name}: 400 \`${field.identifier}\` for NUL, BEL, C1 and a bidi override; Cyrillic and Arabic pass`, async () => {
      const refused = [];
      for (const [label, char] of HOSTILE) {
        const res = await field.send(`An${char}na`);
        refused.push({ label, ...failure(res) });
      }
      expect(refused).toEqual(HOSTILE.map(([label]) => ({ label, status: 400, error: field.identifier })));

      for (const name of [CYRILLIC, ARABIC]) {
        const res = await field.send(name);
        expect([200, 201], `${name}: ${JSON.stringify(res.body)}`).toContain(res.status);
        const stored = field.stored(res);
        if (typeof stored === "string") expect(stored).toContain(name);
      }
    });
  }

  it("the refusal names the field and the reason", async () => {
    const res = await as(admin, "/t/users", {
      body: { email: `${unique()}@example.test`, password: "a-good-password", first_name: "Ann\u202Egnp.exe", last_name: "Lee", role: "student" },
    });
    expect(failure(res)).toEqual({ status: 400, error: "invalid_request_body" });
    expect(res.body.details).toContainEqual({ path: "first_name", message: "must not contain bidirectional override characters" });
  });
});

describe("GET /t/users?q=", () => {
  it("answers 400 `invalid_params` to a control character in the term", async () => {
    const { admin } = await schoolWithAdmin();
    for (const term of ["%00zzz", "a%07b", "%C2%85x"]) {
      const res = await as(admin, `/t/users?q=${term}`);
      expect({ term, ...failure(res) }).toEqual({ term, status: 400, error: "invalid_params" });
    }
  });

  it("matches `%`, `_` and `\\` literally: exact counts, no wildcard", async () => {
    const school = await createSchool();
    const admin = await signedIn(school, { role: "admin" });
    for (const firstName of ["50%скидка", "50xскидка", "a_b", "aXb", "back\\slash", "backXslash"]) await createUser(school.id, { firstName });
    const total = async (q: string) => {
      const res = await as(admin, `/t/users?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      return res.body.data.total as number;
    };
    expect(await total("%")).toBe(1);
    expect(await total("50%")).toBe(1);
    expect(await total("_")).toBe(1);
    expect(await total("a_b")).toBe(1);
    expect(await total("\\")).toBe(1);
    expect(await total("back\\s")).toBe(1);
    expect(await total("скидка")).toBe(2);
    // A blank term is no filter: the admin and the six users.
    expect(await total("   ")).toBe(7);
  });
});
